-- A marcus/td database with issues td cannot read, for td import
-- marcus-td --skip-bad: one good issue, one without a title, one whose
-- created_at is not a time, and one whose handoff list is not JSON. The
-- columns are those of issues.sql (marcus/td's schema version 35), fewer.
--
-- Made with sqlite3 3.40 (the .db is committed, since CI may have no sqlite3):
--   cd repo/exchange/testdata/marcustd && rm -f bad_rows.db && sqlite3 bad_rows.db < bad_rows.sql
PRAGMA page_size = 512;

CREATE TABLE issues (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT DEFAULT '',
    status TEXT NOT NULL DEFAULT 'open',
    type TEXT NOT NULL DEFAULT 'task',
    priority TEXT NOT NULL DEFAULT 'P2',
    labels TEXT DEFAULT '',
    parent_id TEXT DEFAULT '',
    acceptance TEXT DEFAULT '',
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    closed_at DATETIME,
    deleted_at DATETIME
);
INSERT INTO issues (id, title, created_at, updated_at) VALUES ('td-000001', 'A good one', '2026-01-05 09:00:00+00:00', '2026-01-05 09:00:00+00:00');
INSERT INTO issues (id, title, created_at, updated_at) VALUES ('td-000002', '   ', '2026-01-05 09:00:00+00:00', '2026-01-05 09:00:00+00:00');
INSERT INTO issues (id, title, created_at, updated_at) VALUES ('td-000003', 'Bad time', 'yesterday', '2026-01-05 09:00:00+00:00');
INSERT INTO issues (id, title, created_at, updated_at) VALUES ('td-000004', 'Bad handoff', '2026-01-05 09:00:00+00:00', '2026-01-05 09:00:00+00:00');

CREATE TABLE handoffs (
    id TEXT PRIMARY KEY,
    issue_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    done TEXT DEFAULT '[]',
    remaining TEXT DEFAULT '[]',
    decisions TEXT DEFAULT '[]',
    uncertain TEXT DEFAULT '[]',
    timestamp DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO handoffs VALUES ('ho_1', 'td-000004', 'ses_a', 'not json', '[]', '[]', '[]', '2026-01-06 09:00:00+00:00');
