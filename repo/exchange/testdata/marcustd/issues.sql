-- A small marcus/td database for td import marcus-td's tests.
--
-- The tables and columns are those of marcus/td's schema version 35
-- (github.com/marcus/td, internal/db/schema.go with its migrations, as of
-- its 2026 sources): issues, logs, handoffs, comments, issue_dependencies,
-- issue_files, sessions and schema_info. Tables td does not read
-- (git_snapshots, work_sessions, boards, action_log, ...) are left out.
-- Assumed from those sources rather than seen in a real user's file:
-- times are text in the form marcus/td's driver writes
-- ("2026-01-05 09:00:00+00:00") or SQLite's CURRENT_TIMESTAMP; labels
-- are comma-separated; handoff lists are JSON lists of strings; a
-- dependency of relation_type depends_on means issue_id waits for
-- depends_on_id.
--
-- The page size is 512 bytes, so that the fixture is small and still has
-- overflow pages (the long description) and interior pages (the logs).
-- The issues table is made without the columns of later migrations and
-- they are added after the first row, as marcus/td's migrations do, so
-- that row is shorter than the table.
--
-- Made with sqlite3 3.40 (the .db is committed, since CI may have no sqlite3):
--   cd repo/exchange/testdata/marcustd && rm -f issues.db && sqlite3 issues.db < issues.sql
-- truncated.db is its first eight pages, a file cut short:
--   head -c 4096 issues.db > truncated.db
PRAGMA page_size = 512;
PRAGMA journal_mode = DELETE;

CREATE TABLE issues (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT DEFAULT '',
    status TEXT NOT NULL DEFAULT 'open',
    type TEXT NOT NULL DEFAULT 'task',
    priority TEXT NOT NULL DEFAULT 'P2',
    points INTEGER DEFAULT 0,
    labels TEXT DEFAULT '',
    parent_id TEXT DEFAULT '',
    acceptance TEXT DEFAULT '',
    implementer_session TEXT DEFAULT '',
    reviewer_session TEXT DEFAULT '',
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    closed_at DATETIME,
    deleted_at DATETIME,
    minor INTEGER DEFAULT 0,
    created_branch TEXT DEFAULT '',
    FOREIGN KEY (parent_id) REFERENCES issues(id)
);

INSERT INTO issues (id, title, description, status, type, priority, labels, created_at, updated_at)
VALUES ('td-a1b2c3', 'Accounts', 'Everything about signing in.', 'open', 'epic', 'P1', 'auth',
        '2026-01-05 09:00:00+00:00', '2026-01-05 09:00:00+00:00');

ALTER TABLE issues ADD COLUMN creator_session TEXT DEFAULT '';
ALTER TABLE issues ADD COLUMN sprint TEXT DEFAULT '';
ALTER TABLE issues ADD COLUMN defer_until TEXT;
ALTER TABLE issues ADD COLUMN due_date TEXT;
ALTER TABLE issues ADD COLUMN defer_count INTEGER DEFAULT 0;

INSERT INTO issues (id, title, description, status, type, priority, points, labels, parent_id, acceptance,
                    implementer_session, creator_session, sprint, created_at, updated_at, minor, created_branch)
VALUES ('td-d4e5f6', 'Sign in with GitHub',
        'Users sign in with their GitHub account. The OAuth app is registered under the organisation, and the callback handler exchanges the code for a token, checks the state parameter against the one stored in the session cookie, and creates the account on first sign-in. Nothing about the user is stored beyond their GitHub login, their numeric ID and the e-mail address GitHub reports as primary and verified.' || char(10) || char(10) ||
        'Tokens are refreshed when they expire; a refresh that fails signs the user out with a message saying why. The sign-in button is on the home page and on every page that needs an account, and it returns the user to the page they came from. The whole flow works without JavaScript, and a person using a screen reader hears where they are at every step.',
        'in_progress', 'feature', 'P1', 5, 'auth,web', 'td-a1b2c3',
        '- [x] A user can sign in' || char(10) || '- [ ] Expired tokens refresh',
        'ses_impl01', 'ses_lead01', 'sprint-3', '2026-01-05 09:10:00+00:00', '2026-01-07 11:00:00+00:00', 0, 'feat/github');

INSERT INTO issues (id, title, status, type, priority, parent_id, created_at, updated_at, closed_at)
VALUES ('td-789abc', 'Register the OAuth app', 'closed', 'task', 'P2', 'td-a1b2c3',
        '2026-01-04 08:00:00+00:00', '2026-01-05 08:00:00+00:00', '2026-01-05 08:00:00+00:00');

INSERT INTO issues (id, title, status, type, priority, labels, reviewer_session, due_date, created_at, updated_at, minor)
VALUES ('td-def012', 'Login page crashes on Safari', 'in_review', 'bug', 'P0', 'web', 'ses_rev001', '2026-02-01',
        '2026-01-06 10:00:00', '2026-01-06 12:30:00', 1);

INSERT INTO issues (id, title, status, type, priority, created_at, updated_at, deleted_at)
VALUES ('td-345678', 'Old session cleanup', 'open', 'story', 'P3',
        '2026-01-02 08:00:00+00:00', '2026-01-03 08:00:00+00:00', '2026-01-03 08:00:00+00:00');

CREATE TABLE issue_dependencies (
    id TEXT PRIMARY KEY,
    issue_id TEXT NOT NULL,
    depends_on_id TEXT NOT NULL,
    relation_type TEXT NOT NULL DEFAULT 'depends_on',
    UNIQUE(issue_id, depends_on_id, relation_type)
);
INSERT INTO issue_dependencies VALUES ('dep_1', 'td-d4e5f6', 'td-789abc', 'depends_on');
INSERT INTO issue_dependencies VALUES ('dep_2', 'td-def012', 'td-d4e5f6', 'related');

CREATE TABLE comments (
    id TEXT PRIMARY KEY,
    issue_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO comments VALUES ('cm_1', 'td-d4e5f6', 'ses_lead01', 'The callback must check state.', '2026-01-06 09:30:00+00:00');
INSERT INTO comments VALUES ('cm_2', 'td-def012', 'ses_rev001', 'Reproduced on Safari 17.', '2026-01-06 12:30:00+00:00');

CREATE TABLE logs (
    id TEXT PRIMARY KEY,
    issue_id TEXT DEFAULT '',
    session_id TEXT NOT NULL,
    work_session_id TEXT DEFAULT '',
    message TEXT NOT NULL,
    type TEXT NOT NULL DEFAULT 'progress',
    timestamp DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO logs VALUES ('lg_1', 'td-d4e5f6', 'ses_impl01', '', 'Started on the callback handler', 'progress', '2026-01-06 10:00:00+00:00');
INSERT INTO logs VALUES ('lg_2', 'td-d4e5f6', 'ses_impl01', 'ws_1', 'Store the state in a signed cookie', 'decision', '2026-01-06 11:00:00+00:00');
INSERT INTO logs VALUES ('lg_3', '', 'ses_impl01', 'ws_1', 'A work session log of no issue', 'progress', '2026-01-06 11:05:00+00:00');
-- Enough logs on the deleted issue that the table has interior pages.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
INSERT INTO logs SELECT 'lg_old_' || i, 'td-345678', 'ses_old001', '', 'Cleanup pass ' || i || ' over the expired sessions table', 'progress',
       '2026-01-02 ' || printf('%02d', 8 + i / 60) || ':' || printf('%02d', i % 60) || ':00+00:00' FROM n;

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
INSERT INTO handoffs VALUES ('ho_1', 'td-d4e5f6', 'ses_impl01', '["Callback handler","State check"]', '["Token refresh"]',
                             '["State in a signed cookie"]', '[]', '2026-01-07 11:00:00+00:00');

CREATE TABLE issue_files (
    id TEXT PRIMARY KEY,
    issue_id TEXT NOT NULL,
    file_path TEXT NOT NULL,
    role TEXT NOT NULL DEFAULT 'implementation',
    linked_sha TEXT DEFAULT '',
    linked_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE(issue_id, file_path)
);
INSERT INTO issue_files VALUES ('if_1', 'td-d4e5f6', 'auth/callback.go', 'implementation', 'abc1234', '2026-01-06 10:00:00+00:00');

CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT DEFAULT '',
    started_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO sessions VALUES ('ses_impl01', 'implementer', '2026-01-05 09:00:00+00:00');

CREATE TABLE schema_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO schema_info VALUES ('version', '35');

CREATE INDEX idx_logs_issue ON logs(issue_id);
