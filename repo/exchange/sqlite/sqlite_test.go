package sqlite

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// fixture reads a committed database of repo/exchange/testdata/marcustd.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "marcustd", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFixture reads the committed marcus/td fixture: every table, a row
// shorter than its table (written before ALTER TABLE ADD COLUMN), a value
// on overflow pages, and a table with interior pages.
func TestFixture(t *testing.T) {
	db, err := Open(fixture(t, "issues.db"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"issues", "issue_dependencies", "comments", "logs", "handoffs", "issue_files", "sessions", "schema_info"}
	if got := db.Tables(); !reflect.DeepEqual(got, want) {
		t.Fatalf("tables %q, want %q", got, want)
	}
	issues, err := db.Table("ISSUES")
	if err != nil {
		t.Fatal(err)
	}
	if len(issues.Rows) != 5 || len(issues.Columns) != 23 {
		t.Fatalf("issues: %d rows of %d columns, want 5 of 23", len(issues.Rows), len(issues.Columns))
	}
	first := issues.Rows[0]
	if first[issues.Col("id")] != "td-a1b2c3" || first[issues.Col("defer_count")] != nil || first[issues.Col("points")] != int64(0) {
		t.Fatalf("first issue %v: want td-a1b2c3, no defer_count (added later), points 0", first)
	}
	desc, _ := issues.Rows[1][issues.Col("description")].(string)
	if len(desc) < 600 || !strings.HasSuffix(desc, "at every step.") {
		t.Fatalf("the long description came back as %d bytes: %q", len(desc), desc)
	}
	logs, err := db.Table("logs")
	if err != nil {
		t.Fatal(err)
	}
	if len(logs.Rows) != 63 {
		t.Fatalf("logs: %d rows, want 63", len(logs.Rows))
	}
	if _, err := db.Table("boards"); !errors.Is(err, ErrNoTable) {
		t.Fatalf("a missing table: %v, want ErrNoTable", err)
	}
}

// TestDamage: a damaged or foreign file is a FormatError saying why,
// never a panic or an endless loop.
func TestDamage(t *testing.T) {
	good := fixture(t, "issues.db")
	db, err := Open(good)
	if err != nil {
		t.Fatal(err)
	}
	logsRoot := rootOf(t, db, "logs")
	issuesRoot := rootOf(t, db, "issues")
	ps := db.pageSize
	at := func(page uint32) int { return int(page-1) * ps }
	// The overflow page of the long description: the first overflow
	// pointer found in the issues table's leaf cells.
	overflow := firstOverflow(t, db, issuesRoot)

	for _, tt := range []struct {
		name  string
		edit  func(b []byte) []byte
		want  string
		table string
	}{
		{name: "empty", edit: func([]byte) []byte { return nil }, want: "not a SQLite database"},
		{name: "text", edit: func([]byte) []byte { return []byte("SQLite format 3 (a stand-in)\n") }, want: "not a SQLite database"},
		{name: "page size", edit: func(b []byte) []byte { b[16], b[17] = 0x03, 0x00; return b }, want: "page size 768"},
		{name: "cut short", edit: func(b []byte) []byte { return b[:8*ps] }, want: "header counts 52 pages but the file holds 8"},
		{name: "cut mid-page", edit: func(b []byte) []byte { return b[:8*ps+100] }, want: "not a whole number"},
		{name: "utf-16", edit: func(b []byte) []byte { b[59] = 2; return b }, want: "UTF-16"},
		{name: "newer format", edit: func(b []byte) []byte { b[19] = 3; return b }, want: "newer than td reads"},
		{name: "child cycle", table: "logs", want: "reached twice", edit: func(b []byte) []byte {
			o := at(logsRoot)
			binary.BigEndian.PutUint32(b[o+8:], logsRoot) // right-most child: itself
			return b
		}},
		{name: "child past the end", table: "logs", want: "outside the file's", edit: func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[at(logsRoot)+8:], 1<<30)
			return b
		}},
		{name: "overflow cycle", table: "issues", want: "overflow page", edit: func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[at(overflow):], overflow)
			return b
		}},
		{name: "page type", table: "logs", want: "not a table b-tree page", edit: func(b []byte) []byte {
			b[at(logsRoot)] = 0x0a
			return b
		}},
		{name: "cell count", table: "logs", want: "more than fit", edit: func(b []byte) []byte {
			binary.BigEndian.PutUint16(b[at(logsRoot)+3:], 0xffff)
			return b
		}},
		{name: "cell pointer", table: "logs", want: "outside the page's cell area", edit: func(b []byte) []byte {
			binary.BigEndian.PutUint16(b[at(logsRoot)+12:], 3)
			return b
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.edit(bytes.Clone(good))
			db, err := Open(data)
			if err == nil && tt.table != "" {
				_, err = db.Table(tt.table)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a FormatError saying %q", err, tt.want)
			}
		})
	}
}

func rootOf(t *testing.T, db *DB, name string) uint32 {
	for _, s := range db.schema {
		if s.name == name {
			return s.root
		}
	}
	t.Fatalf("no table %s", name)
	return 0
}

// firstOverflow finds the first overflow page of a leaf cell under root.
func firstOverflow(t *testing.T, db *DB, root uint32) uint32 {
	p, h, err := db.page(root)
	if err != nil || p[h] != 0x05 && p[h] != 0x0d {
		t.Fatalf("page %d: %v", root, err)
	}
	var found uint32
	var visit func(n uint32)
	visit = func(n uint32) {
		p, h, _ := db.page(n)
		cells := int(binary.BigEndian.Uint16(p[h+3:]))
		hdr := 8
		if p[h] == 0x05 {
			hdr = 12
		}
		for i := 0; i < cells && found == 0; i++ {
			off := int(binary.BigEndian.Uint16(p[h+hdr+2*i:]))
			if p[h] == 0x05 {
				visit(binary.BigEndian.Uint32(p[off:]))
				continue
			}
			size, k := uvarint(p[off:])
			_, k2 := uvarint(p[off+k:])
			u := db.usable
			if int(size) > u-35 {
				m := (u-12)*32/255 - 23
				local := m + (int(size)-m)%(u-4)
				if local > u-35 {
					local = m
				}
				found = binary.BigEndian.Uint32(p[off+k+k2+local:])
			}
		}
		if p[h] == 0x05 && found == 0 {
			visit(binary.BigEndian.Uint32(p[h+8:]))
		}
	}
	visit(root)
	if found == 0 {
		t.Fatal("no overflow page in the fixture")
	}
	return found
}

// TestAgainstSQLite reads databases sqlite3 made and compares every row
// with what sqlite3 itself reads: integers of every width, floats, blobs,
// NULLs, an INTEGER PRIMARY KEY, quoted names, long values on overflow
// chains at two page sizes, and 1,500 rows. It needs the sqlite3
// program, and is skipped without it (the fixtures above need none).
func TestAgainstSQLite(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("no sqlite3 program")
	}
	for _, ps := range []int{512, 4096} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "t.db")
			script := fmt.Sprintf(`PRAGMA page_size = %d;
CREATE TABLE "odd ""name""" (k INTEGER PRIMARY KEY, [a b] TEXT, `+"`c`"+` BLOB, d REAL, e);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
INSERT INTO "odd ""name""" SELECT i * 7, 'row ' || i || ' ' || substr(hex(randomblob(800)), 1, i %% 1700),
  CASE WHEN i %% 5 = 0 THEN NULL ELSE randomblob(i %% 40) END, i / 3.0,
  CASE i %% 7 WHEN 0 THEN -i WHEN 1 THEN i * 100000 WHEN 2 THEN -i * 10000000000 WHEN 3 THEN 9223372036854775807
    WHEN 4 THEN -9223372036854775808 WHEN 5 THEN 0 ELSE 1 END FROM n;
CREATE TABLE plain (x, y TEXT);
INSERT INTO plain VALUES (1, 'one'), (NULL, NULL), (-128, ''), (32767, 'é');
CREATE TABLE wr (a TEXT PRIMARY KEY, b) WITHOUT ROWID;
`, ps)
			cmd := exec.Command("sqlite3", file)
			cmd.Stdin = strings.NewReader(script)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sqlite3: %v\n%s", err, out)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			db, err := Open(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{`odd "name"`, "plain"} {
				tab, err := db.Table(name)
				if err != nil {
					t.Fatal(err)
				}
				quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
				var sel []string
				for _, c := range tab.Columns {
					// Blobs as hex, floats printed, so both sides compare as text.
					q := `"` + c + `"`
					sel = append(sel, fmt.Sprintf(`CASE typeof(%s) WHEN 'blob' THEN 'x:' || hex(%s) WHEN 'real' THEN 'r:' || quote(%s) ELSE %s END`, q, q, q, q))
				}
				out, err := exec.Command("sqlite3", "-json", file, "SELECT "+strings.Join(sel, ", ")+" FROM "+quoted+" ORDER BY rowid").Output()
				if err != nil {
					t.Fatal(err)
				}
				var want [][]any
				dec := json.NewDecoder(bytes.NewReader(out))
				dec.UseNumber()
				var objs []map[string]any
				if len(bytes.TrimSpace(out)) > 0 {
					if err := dec.Decode(&objs); err != nil {
						t.Fatal(err)
					}
				}
				for _, o := range objs {
					row := make([]any, 0, len(o))
					for i := range tab.Columns {
						for k, v := range o {
							if k == sel[i] {
								row = append(row, v)
							}
						}
					}
					want = append(want, row)
				}
				if len(want) != len(tab.Rows) {
					t.Fatalf("%s: %d rows, sqlite3 reads %d", name, len(tab.Rows), len(want))
				}
				for i, row := range tab.Rows {
					for j, v := range row {
						if got, w := asText(v), fmt.Sprint(want[i][j]); got != w && !(v == nil && want[i][j] == nil) && !sameFloat(v, w) {
							t.Fatalf("%s row %d column %s: %q, sqlite3 reads %q", name, i, tab.Columns[j], got, w)
						}
					}
				}
			}
			if _, err := db.Table("wr"); err == nil || !strings.Contains(err.Error(), "WITHOUT ROWID") {
				t.Fatalf("a WITHOUT ROWID table: %v", err)
			}
		})
	}
}

// sameFloat reports whether sqlite3's text "r:..." is the float v.
func sameFloat(v any, w string) bool {
	f, ok := v.(float64)
	x, err := strconv.ParseFloat(strings.TrimPrefix(w, "r:"), 64)
	return ok && err == nil && f == x
}

func asText(v any) string {
	switch x := v.(type) {
	case []byte:
		return "x:" + strings.ToUpper(fmt.Sprintf("%x", x))
	case float64:
		return "r:" + strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.17g", x), ".0"), ".")
	case nil:
		return "<nil>"
	}
	return fmt.Sprint(v)
}

func TestParseCreateTable(t *testing.T) {
	for _, tt := range []struct {
		sql     string
		cols    []string
		rowid   int
		noRowid bool
		err     string
	}{
		{sql: "CREATE TABLE t (a, b)", cols: []string{"a", "b"}, rowid: -1},
		{sql: "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT DEFAULT '(,)')", cols: []string{"id", "v"}, rowid: 0},
		{sql: "CREATE TABLE t (id integer primary key desc, x)", cols: []string{"id", "x"}, rowid: -1},
		{sql: "CREATE TABLE t (x TEXT, id INTEGER, PRIMARY KEY (id))", cols: []string{"x", "id"}, rowid: 1},
		{sql: "CREATE TABLE \"t\" (\"a\"\"q\" TEXT, [b c] INT, `d` -- note\n, /* c */ e, FOREIGN KEY (e) REFERENCES t(a), UNIQUE(a, e), CHECK (length(b) > 0))",
			cols: []string{"a\"q", "b c", "d", "e"}, rowid: -1},
		{sql: "CREATE TABLE t (a TEXT PRIMARY KEY, b) WITHOUT ROWID", cols: []string{"a", "b"}, rowid: -1, noRowid: true},
		{sql: "CREATE TABLE t (a, b", err: "not closed"},
		{sql: "CREATE TABLE t AS SELECT 1", err: "CREATE TABLE ... AS"},
		{sql: "CREATE TABLE t (a 'unclosed)", err: "quote"},
		{sql: "CREATE TABLE t (a, , b)", err: "empty column"},
	} {
		def, err := parseCreateTable(tt.sql)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want an error saying %q", tt.sql, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(def.columns, tt.cols) || def.rowidCol != tt.rowid || def.withoutRowid != tt.noRowid {
			t.Errorf("%s: %+v %v, want %q rowid %d without %v", tt.sql, def, err, tt.cols, tt.rowid, tt.noRowid)
		}
	}
}

func TestVarint(t *testing.T) {
	for _, tt := range []struct {
		in   []byte
		v    uint64
		size int
	}{
		{[]byte{0x00}, 0, 1},
		{[]byte{0x7f}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, 9},
		{[]byte{0x81}, 0, 0},
		{nil, 0, 0},
	} {
		if v, n := uvarint(tt.in); v != tt.v || n != tt.size {
			t.Errorf("uvarint(%x) = %d, %d; want %d, %d", tt.in, v, n, tt.v, tt.size)
		}
	}
}

// FuzzOpen: whatever the bytes, Open and Table return or refuse, never
// panic, and every row has one value per column.
func FuzzOpen(f *testing.F) {
	f.Add(fixture(f, "issues.db"))
	f.Add(fixture(f, "truncated.db"))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Open(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Open: %T %v is not a FormatError", err, err)
			}
			return
		}
		for _, name := range db.Tables() {
			tab, err := db.Table(name)
			if err != nil {
				continue
			}
			for _, row := range tab.Rows {
				if len(row) != len(tab.Columns) {
					t.Fatalf("%s: a row of %d values for %d columns", name, len(row), len(tab.Columns))
				}
			}
		}
	})
}
