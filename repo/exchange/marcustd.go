package exchange

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/exchange/sqlite"
)

// marcus/td is another tracker whose binary is also called td and which
// keeps its data in .todos/ too: a SQLite database, .todos/issues.db,
// beside .todos/security_events.jsonl. td init in such a folder offers to
// import it, and td never writes that file: it is opened read-only, read
// whole into memory and parsed by repo/exchange/sqlite, a reader of the
// file format written for this, so no SQLite engine is linked into td.
//
// The tables read, with the columns of marcus/td's schema version 35
// (internal/db/schema.go and its migrations):
//
//   - issues: id, title, description, status (open, in_progress, blocked,
//     in_review, closed), type (bug, feature, task, epic, chore), priority
//     (P0..P4), points, labels (comma-separated), parent_id, acceptance,
//     sprint, implementer_session, creator_session, reviewer_session,
//     created_at, updated_at, closed_at, deleted_at, minor,
//     created_branch, defer_until, due_date, defer_count and any column a
//     later version adds;
//   - issue_dependencies: issue_id, depends_on_id, relation_type
//     (depends_on: issue_id waits for depends_on_id);
//   - comments: issue_id, session_id, text, created_at;
//   - logs: issue_id, session_id, work_session_id, message, type
//     (progress, blocker, decision, hypothesis, tried, result, ...),
//     timestamp;
//   - handoffs: issue_id, session_id, done, remaining, decisions,
//     uncertain (JSON lists of strings), timestamp;
//   - issue_files: issue_id, file_path, role, linked_sha.
//
// Times are text as marcus/td's driver writes them
// ("2006-01-02 15:04:05.999999999-07:00", or SQLite's CURRENT_TIMESTAMP
// "2006-01-02 15:04:05" in UTC), RFC 3339, or integer Unix seconds.

// MarcusTDDatabase is where marcus/td keeps its database, relative to the
// work tree root.
const MarcusTDDatabase = repo.TodosDir + "/issues.db"

// SourceMarcusTD prefixes the imported_from of an issue from marcus/td.
const SourceMarcusTD = "marcus-td"

// maxDatabase bounds the database file td import marcus-td reads.
const maxDatabase = 1 << 30

// HasMarcusTD reports whether the work tree at root holds marcus/td's
// database: a file at .todos/issues.db, a name td itself never uses.
func HasMarcusTD(root string) bool {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(MarcusTDDatabase)))
	return err == nil && !fi.IsDir()
}

// ReadMarcusTD reads marcus/td's database at file, shown as shown in
// messages. It opens the file read-only and never writes it or anything
// beside it. A database whose last changes are still in a write-ahead log
// or a rollback journal beside it is refused: what the file alone holds
// would be stale or half written.
func ReadMarcusTD(file, shown string) (*Parsed, error) {
	for _, side := range []struct{ suffix, why string }{
		{"-wal", "its latest changes are still in the write-ahead log %s beside it; run any marcus/td command (or sqlite3 %s 'PRAGMA wal_checkpoint(TRUNCATE)') so they are written into the database, then import again"},
		{"-journal", "a transaction on it is under way or was cut short (%s is not empty); let marcus/td finish (run any marcus/td command), then import again"},
	} {
		if fi, err := os.Stat(file + side.suffix); err == nil && fi.Size() > 0 {
			why := side.why
			if side.suffix == "-wal" {
				why = fmt.Sprintf(why, shown+side.suffix, shown)
			} else {
				why = fmt.Sprintf(why, shown+side.suffix)
			}
			return nil, repo.Errorf(repo.CodeRefused, "%s: %s", shown, why)
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", shown, unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDatabase+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", shown, unwrapPath(err))
	}
	if len(data) > maxDatabase {
		return nil, repo.Errorf(repo.CodeInvalid, "%s is over the %d byte limit", shown, maxDatabase)
	}
	return ParseMarcusTD(shown, data)
}

// ParseMarcusTD reads marcus/td's database from its bytes. A file that
// is not a SQLite database, is damaged, or lacks the issues table is an
// error naming path and why; an issue td cannot read is a bad row.
func ParseMarcusTD(path string, data []byte) (*Parsed, error) {
	db, err := sqlite.Open(data)
	if err != nil {
		return nil, repo.Errorf(repo.CodeParse, "%s: %v", path, err)
	}
	issues, err := db.Table("issues")
	if errors.Is(err, sqlite.ErrNoTable) {
		return nil, repo.Errorf(repo.CodeParse, "%s: it has no issues table, so it is not marcus/td's database", path)
	}
	if err != nil {
		return nil, repo.Errorf(repo.CodeParse, "%s: %v", path, err)
	}
	for _, c := range []string{"id", "title"} {
		if issues.Col(c) < 0 {
			return nil, repo.Errorf(repo.CodeParse, "%s: its issues table has no %s column, so it is not marcus/td's database", path, c)
		}
	}
	side := map[string]*sqlite.Table{}
	for _, name := range []string{"issue_dependencies", "comments", "logs", "handoffs", "issue_files"} {
		t, err := db.Table(name)
		if errors.Is(err, sqlite.ErrNoTable) {
			continue // an older schema, or a table never made
		}
		if err != nil {
			return nil, repo.Errorf(repo.CodeParse, "%s: %v", path, err)
		}
		side[name] = t
	}
	p := &Parsed{}
	byID := map[string]*Record{}
	for i, row := range issues.Rows {
		at := Position{Path: path}
		rec, err := marcusIssue(at, rowMap(issues, row))
		if err != nil {
			id := cellText(rowMap(issues, row)["id"])
			if id == "" {
				id = fmt.Sprintf("row %d", i+1)
			}
			p.bad(at, "issue %s: %v", id, err)
			continue
		}
		if _, dup := byID[rec.Source]; !dup {
			byID[rec.Source] = rec
		}
		p.Records = append(p.Records, rec)
	}
	// A row of another table that cannot be read makes its issue bad.
	badIssue := map[string]string{}
	note := func(issue, format string, args ...any) {
		if _, ok := badIssue[issue]; !ok {
			badIssue[issue] = fmt.Sprintf(format, args...)
		}
	}
	for _, m := range rows(side["issue_dependencies"]) {
		rec := byID[SourceMarcusTD+":"+cellText(m["issue_id"])]
		to := cellText(m["depends_on_id"])
		if rec == nil || to == "" {
			continue
		}
		switch rel := cellText(m["relation_type"]); rel {
		case "", "depends_on":
			rec.Links = append(rec.Links, Link{Kind: domain.BlockedBy, To: SourceMarcusTD + ":" + to})
		default:
			rec.Links = append(rec.Links, Link{Kind: domain.RelatesTo, To: SourceMarcusTD + ":" + to})
			appendExtra(rec, "dependencies", map[string]any{"depends_on_id": to, "relation_type": rel})
		}
	}
	events := func(table, timeCol string, fn func(m map[string]any, at time.Time) (Event, bool, error)) {
		for _, m := range rows(side[table]) {
			issue := cellText(m["issue_id"])
			rec := byID[SourceMarcusTD+":"+issue]
			if rec == nil {
				continue // a work session's log, or an issue that is gone
			}
			at, err := cellTime(m, timeCol)
			if err != nil {
				note(rec.Source, "issue %s: a row of %s: %v", issue, table, err)
				continue
			}
			ev, ok, err := fn(m, at)
			if err != nil {
				note(rec.Source, "issue %s: a row of %s: %v", issue, table, err)
				continue
			}
			if ok {
				rec.Events = append(rec.Events, ev)
			}
		}
	}
	events("comments", "created_at", func(m map[string]any, at time.Time) (Event, bool, error) {
		text := cellText(m["text"])
		return Event{At: at, Author: cellText(m["session_id"]), Kind: EventComment, Text: text}, strings.TrimSpace(text) != "", nil
	})
	events("logs", "timestamp", func(m map[string]any, at time.Time) (Event, bool, error) {
		text := cellText(m["message"])
		d := map[string]any{}
		if t := cellText(m["type"]); t != "" {
			d["type"] = t
		}
		if ws := cellText(m["work_session_id"]); ws != "" {
			d["work_session_id"] = ws
		}
		if len(d) == 0 {
			d = nil
		}
		return Event{At: at, Author: cellText(m["session_id"]), Kind: "log", Text: text, Details: d}, strings.TrimSpace(text) != "", nil
	})
	events("handoffs", "timestamp", func(m map[string]any, at time.Time) (Event, bool, error) {
		d := map[string]any{}
		var lines []string
		for _, k := range []string{"done", "remaining", "decisions", "uncertain"} {
			list, err := jsonStrings(m[k])
			if err != nil {
				return Event{}, false, fmt.Errorf("%s %v", k, err)
			}
			if len(list) == 0 {
				continue
			}
			items := make([]any, len(list))
			for i, s := range list {
				items[i] = s
			}
			d[k] = items
			lines = append(lines, strings.ToUpper(k[:1])+k[1:]+": "+strings.Join(list, "; "))
		}
		if len(d) == 0 {
			return Event{}, false, nil
		}
		return Event{At: at, Author: cellText(m["session_id"]), Kind: "handoff", Text: strings.Join(lines, "\n"), Details: d}, true, nil
	})
	for _, m := range rows(side["issue_files"]) {
		rec := byID[SourceMarcusTD+":"+cellText(m["issue_id"])]
		if rec == nil || cellText(m["file_path"]) == "" {
			continue
		}
		f := map[string]any{"path": cellText(m["file_path"])}
		if r := cellText(m["role"]); r != "" {
			f["role"] = r
		}
		if s := cellText(m["linked_sha"]); s != "" {
			f["linked_sha"] = s
		}
		appendExtra(rec, "files", f)
	}
	kept := p.Records[:0]
	for _, rec := range p.Records {
		if why, ok := badIssue[rec.Source]; ok {
			p.bad(rec.At, "%s", why)
			continue
		}
		sort.SliceStable(rec.Events, func(i, j int) bool { return rec.Events[i].At.Before(rec.Events[j].At) })
		kept = append(kept, rec)
	}
	p.Records = kept
	return p, nil
}

// marcusKnown are the issue columns ParseMarcusTD maps onto td's fields;
// every other column with a value is kept under imported:.
var marcusKnown = map[string]bool{
	"id": true, "title": true, "description": true, "status": true, "type": true, "priority": true,
	"labels": true, "parent_id": true, "acceptance": true, "minor": true, "created_at": true, "updated_at": true,
	"closed_at": true,
}

// marcusStatuses maps marcus/td's statuses (review and hyphens are its
// aliases).
var marcusStatuses = map[string]statusWord{
	"open":        {domain.StatusOpen, ""},
	"in_progress": {domain.StatusInProgress, ""},
	"in-progress": {domain.StatusInProgress, ""},
	"blocked":     {domain.StatusBlocked, ""},
	"in_review":   {domain.StatusInReview, ""},
	"in-review":   {domain.StatusInReview, ""},
	"review":      {domain.StatusInReview, ""},
	"closed":      {domain.StatusClosed, domain.ResolutionDone},
}

// marcusTypes maps marcus/td's types; story is its alias for feature.
var marcusTypes = map[string]domain.IssueType{
	"bug": domain.TypeBug, "feature": domain.TypeFeature, "story": domain.TypeFeature, "task": domain.TypeTask,
	"chore": domain.TypeChore, "epic": domain.TypeEpic,
}

// marcusPriorities are marcus/td's words for its priorities.
var marcusPriorities = map[string]domain.Priority{
	"critical": domain.P0, "highest": domain.P0, "high": domain.P1, "medium": domain.P2, "normal": domain.P2,
	"default": domain.P2, "low": domain.P3, "lowest": domain.P4, "none": domain.P4,
}

func marcusIssue(at Position, m map[string]any) (*Record, error) {
	id := strings.TrimSpace(cellText(m["id"]))
	if id == "" {
		return nil, fmt.Errorf("the issue has no id")
	}
	r := &Record{Source: SourceMarcusTD + ":" + id, At: at}
	text := map[string]string{}
	for _, k := range []string{"title", "description", "status", "type", "priority", "labels", "parent_id", "acceptance"} {
		v, err := cellString(m, k)
		if err != nil {
			return nil, err
		}
		text[k] = v
	}
	if r.Title = oneLine(text["title"]); r.Title == "" {
		return nil, fmt.Errorf("it has no title")
	}
	r.Description = text["description"]
	r.Criteria = criteriaFromText(text["acceptance"])
	r.setStatus(marcusStatuses, "status", text["status"])
	r.setType(marcusTypes, "type", text["type"])
	p, ok := mapPriority(marcusPriorities, text["priority"])
	r.Priority = p
	if !ok {
		r.setExtra("priority", text["priority"])
	}
	for _, l := range strings.Split(text["labels"], ",") {
		if l = strings.TrimSpace(l); l != "" {
			r.Labels = append(r.Labels, l)
		}
	}
	if minor, ok := m["minor"].(int64); ok && minor != 0 {
		r.Minor = true
	}
	if parent := strings.TrimSpace(text["parent_id"]); parent != "" && parent != id {
		r.Links = append(r.Links, Link{Kind: domain.ChildOf, To: SourceMarcusTD + ":" + parent})
	}
	var err error
	if r.CreatedAt, err = cellTime(m, "created_at"); err != nil {
		return nil, err
	}
	if r.UpdatedAt, err = cellTime(m, "updated_at"); err != nil {
		return nil, err
	}
	closedAt, err := cellTime(m, "closed_at")
	if err != nil {
		return nil, err
	}
	if !closedAt.IsZero() {
		r.Events = append(r.Events, Event{At: closedAt, Kind: "closed"})
	}
	if deleted, err := cellTime(m, "deleted_at"); err != nil {
		return nil, err
	} else if !deleted.IsZero() {
		// A deleted issue is kept, closed as wontfix, as beads' tombstones.
		// Its status before it was deleted is kept with deleted_at.
		r.Status, r.Resolution = domain.StatusClosed, domain.ResolutionWontfix
		r.setExtra("status", text["status"])
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if marcusKnown[k] {
			continue
		}
		v := m[k]
		switch x := v.(type) {
		case int64:
			if x == 0 {
				continue // points, defer_count: 0 is marcus/td's none
			}
		case []byte:
			v = fmt.Sprintf("%x", x)
		case string:
			v = strings.TrimSpace(x)
		}
		r.setExtra(k, v)
	}
	return r, nil
}

// rows are a table's rows as column maps; nil for no table.
func rows(t *sqlite.Table) []map[string]any {
	if t == nil {
		return nil
	}
	out := make([]map[string]any, len(t.Rows))
	for i, row := range t.Rows {
		out[i] = rowMap(t, row)
	}
	return out
}

func rowMap(t *sqlite.Table, row []any) map[string]any {
	m := make(map[string]any, len(t.Columns))
	for i, c := range t.Columns {
		m[strings.ToLower(c)] = row[i]
	}
	return m
}

// cellText is a cell as text: a number written out, NULL as "".
func cellText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return string(x)
	}
	return ""
}

// cellString reads a text column; a blob in one is an error.
func cellString(m map[string]any, key string) (string, error) {
	if b, ok := m[key].([]byte); ok {
		return "", fmt.Errorf("%s is binary data (%d bytes), not text", key, len(b))
	}
	return cellText(m[key]), nil
}

// marcusTimeLayouts are the ways a time is written in marcus/td's
// database, most usual first.
var marcusTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999 -0700 MST",
	"2006-01-02 15:04:05.999999999 -0700",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

// cellTime reads a time column; NULL and "" are the zero time.
func cellTime(m map[string]any, key string) (time.Time, error) {
	var t time.Time
	switch x := m[key].(type) {
	case nil:
		return time.Time{}, nil
	case int64:
		t = time.Unix(x, 0)
	case float64:
		t = time.Unix(int64(x), 0)
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return time.Time{}, nil
		}
		// Go's time.Time.String() adds a monotonic clock reading.
		if i := strings.Index(s, " m="); i > 0 {
			s = s[:i]
		}
		ok := false
		for _, layout := range marcusTimeLayouts {
			if p, err := time.Parse(layout, s); err == nil {
				t, ok = p, true
				break
			}
		}
		if !ok {
			return time.Time{}, fmt.Errorf("%s %q is not a time", key, x)
		}
	default:
		return time.Time{}, fmt.Errorf("%s is binary data, not a time", key)
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return time.Time{}, fmt.Errorf("%s %v is outside the years td can write", key, m[key])
	}
	return t.UTC().Truncate(time.Second), nil
}

// jsonStrings reads a handoff list: a JSON list of strings; NULL and ""
// are none.
func jsonStrings(v any) ([]string, error) {
	s := strings.TrimSpace(cellText(v))
	if s == "" || s == "null" {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		return nil, fmt.Errorf("%q is not a JSON list of strings", s)
	}
	out := list[:0]
	for _, x := range list {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out, nil
}

// appendExtra adds v to the list kept under imported: key.
func appendExtra(r *Record, key string, v any) {
	list, _ := r.Extra[key].([]any)
	r.setExtra(key, append(list, v))
}
