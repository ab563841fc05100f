// Package sqlite reads the tables of a SQLite database file, and nothing
// more: no SQL, no indexes, no writes. It exists so that td import
// marcus-td can read marcus/td's .todos/issues.db without linking a SQLite
// engine into td, whose every command would pay for it at start-up.
//
// It follows the file format of sqlite.org/fileformat2.html: the 100-byte
// header, the table b-trees (interior and leaf pages), the record format
// with its varints and serial types, overflow pages, and the schema table
// on page 1, whose CREATE TABLE statements give the column names.
//
// The input is untrusted. Every offset is checked against the page it is
// in, every page number against the file; a page reached twice (a cycle of
// child or overflow pointers) and a tree deeper than any real one are
// reported as damage, so every loop ends and nothing panics. What it cannot
// read is a *FormatError saying why.
package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// magic opens every SQLite 3 database file.
const magic = "SQLite format 3\x00"

// headerSize is the size of the file header at the start of page 1.
const headerSize = 100

// maxDepth bounds the depth of a b-tree: a real one of 2^32 pages of the
// smallest size is under 30 deep.
const maxDepth = 40

// FormatError is a file that is not a SQLite database td can read, or one
// that is damaged.
type FormatError struct{ Reason string }

func (e *FormatError) Error() string { return e.Reason }

func damaged(format string, args ...any) error {
	return &FormatError{Reason: "the database is damaged: " + fmt.Sprintf(format, args...)}
}

// ErrNoTable is returned by Table for a name the schema does not have.
var ErrNoTable = errors.New("no such table")

// DB is a database file read into memory.
type DB struct {
	data     []byte
	pageSize int
	usable   int
	pages    uint32
	schema   []schemaRow
}

// schemaRow is one table of the schema table.
type schemaRow struct {
	name string
	root uint32
	sql  string
}

// Open reads the header and the schema of the database in data. data must
// not change while the DB is used.
func Open(data []byte) (*DB, error) {
	if len(data) < headerSize || string(data[:len(magic)]) != magic {
		return nil, &FormatError{Reason: "not a SQLite database (it does not start with \"SQLite format 3\")"}
	}
	ps := int(binary.BigEndian.Uint16(data[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return nil, damaged("the page size %d is not a power of two from 512 to 65536", ps)
	}
	if data[18] > 2 || data[19] > 2 {
		return nil, &FormatError{Reason: fmt.Sprintf("the file format version %d.%d is newer than td reads", data[18], data[19])}
	}
	reserved := int(data[20])
	usable := ps - reserved
	if usable < 480 {
		return nil, damaged("%d of each page's %d bytes are reserved", reserved, ps)
	}
	if enc := binary.BigEndian.Uint32(data[56:60]); enc != 0 && enc != 1 {
		return nil, &FormatError{Reason: "the database's text is UTF-16; td reads UTF-8 databases only"}
	}
	if len(data)%ps != 0 && len(data) > ps {
		// A file cut short of a whole page: its last page is lost.
		return nil, damaged("the file is %d bytes, not a whole number of %d-byte pages", len(data), ps)
	}
	n := len(data) / ps
	if len(data) < ps {
		return nil, damaged("the file is %d bytes, shorter than its first %d-byte page", len(data), ps)
	}
	// The size in the header is valid when the change counter agrees with
	// version-valid-for; a larger one means the file lost pages.
	if size := binary.BigEndian.Uint32(data[28:32]); size != 0 && binary.BigEndian.Uint32(data[24:28]) == binary.BigEndian.Uint32(data[92:96]) {
		if int64(size) > int64(n) {
			return nil, damaged("the header counts %d pages but the file holds %d", size, n)
		}
		n = int(size)
	}
	if int64(n) > math.MaxUint32 {
		n = math.MaxUint32
	}
	db := &DB{data: data, pageSize: ps, usable: usable, pages: uint32(n)}
	if err := db.readSchema(); err != nil {
		return nil, err
	}
	return db, nil
}

// readSchema reads the tables of the schema table, page 1.
func (db *DB) readSchema() error {
	return db.walk(1, func(rowid int64, rec []any) error {
		if len(rec) < 5 {
			return damaged("a schema row has %d columns, not 5", len(rec))
		}
		typ, _ := rec[0].(string)
		if typ != "table" {
			return nil
		}
		name, _ := rec[1].(string)
		root, _ := rec[3].(int64)
		sql, _ := rec[4].(string)
		if root < 0 || root > int64(db.pages) {
			return damaged("table %s starts at page %d, outside the file's %d pages", name, root, db.pages)
		}
		db.schema = append(db.schema, schemaRow{name: name, root: uint32(root), sql: sql})
		return nil
	})
}

// Tables lists the names of the database's tables, in schema order.
func (db *DB) Tables() []string {
	out := make([]string, 0, len(db.schema))
	for _, s := range db.schema {
		out = append(out, s.name)
	}
	return out
}

// Table is a table's columns and rows. A row has one value per column:
// nil, int64, float64, string or []byte.
type Table struct {
	Name    string
	Columns []string
	Rows    [][]any
}

// Col is the index of the named column, or -1.
func (t *Table) Col(name string) int {
	for i, c := range t.Columns {
		if equalFold(c, name) {
			return i
		}
	}
	return -1
}

// Table reads every row of the named table (matched without case). A row
// written before a column was added has nil in that column.
func (db *DB) Table(name string) (*Table, error) {
	var s *schemaRow
	for i := range db.schema {
		if equalFold(db.schema[i].name, name) {
			s = &db.schema[i]
			break
		}
	}
	if s == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNoTable)
	}
	def, err := parseCreateTable(s.sql)
	if err != nil {
		return nil, damaged("table %s: %v", s.name, err)
	}
	if def.withoutRowid {
		return nil, &FormatError{Reason: fmt.Sprintf("table %s is a WITHOUT ROWID table, which td does not read", s.name)}
	}
	if s.root == 0 {
		return nil, &FormatError{Reason: fmt.Sprintf("table %s is a virtual table, which holds no rows in the file", s.name)}
	}
	t := &Table{Name: s.name, Columns: def.columns}
	err = db.walk(s.root, func(rowid int64, rec []any) error {
		if len(rec) > len(def.columns) {
			return damaged("a row of %s has %d values for its %d columns", s.name, len(rec), len(def.columns))
		}
		row := make([]any, len(def.columns))
		copy(row, rec)
		if def.rowidCol >= 0 && row[def.rowidCol] == nil {
			row[def.rowidCol] = rowid
		}
		for i, v := range row {
			if n, ok := v.(int64); ok && def.real[i] {
				row[i] = float64(n)
			}
		}
		t.Rows = append(t.Rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// page returns page n (1-based) and the offset of its b-tree header.
func (db *DB) page(n uint32) ([]byte, int, error) {
	if n < 1 || n > db.pages {
		return nil, 0, damaged("a pointer names page %d, outside the file's %d pages", n, db.pages)
	}
	off := int64(n-1) * int64(db.pageSize)
	p := db.data[off : off+int64(db.pageSize)]
	if n == 1 {
		return p, headerSize, nil
	}
	return p, 0, nil
}

// walk calls fn with every row of the table b-tree rooted at page root, in
// rowid order. A page reached twice is damage.
func (db *DB) walk(root uint32, fn func(rowid int64, rec []any) error) error {
	seen := map[uint32]bool{}
	var visit func(n uint32, depth int) error
	visit = func(n uint32, depth int) error {
		if depth > maxDepth {
			return damaged("the tree under page %d is more than %d pages deep", root, maxDepth)
		}
		if seen[n] {
			return damaged("page %d is reached twice (a cycle of page pointers)", n)
		}
		seen[n] = true
		p, h, err := db.page(n)
		if err != nil {
			return err
		}
		if h+8 > len(p) {
			return damaged("page %d is too short for its header", n)
		}
		kind := p[h]
		hdr := 8
		if kind == 0x05 {
			hdr = 12
		} else if kind != 0x0d {
			return damaged("page %d is of type %#x, not a table b-tree page", n, kind)
		}
		if h+hdr > len(p) {
			return damaged("page %d is too short for its header", n)
		}
		cells := int(binary.BigEndian.Uint16(p[h+3 : h+5]))
		ptrs := h + hdr
		if ptrs+2*cells > db.usable {
			return damaged("page %d claims %d cells, more than fit", n, cells)
		}
		for i := 0; i < cells; i++ {
			off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
			if off < ptrs+2*cells || off >= db.usable {
				return damaged("cell %d of page %d starts at byte %d, outside the page's cell area", i, n, off)
			}
			cell := p[off:db.usable]
			if kind == 0x05 {
				if len(cell) < 4 {
					return damaged("cell %d of page %d is cut short", i, n)
				}
				if err := visit(binary.BigEndian.Uint32(cell), depth+1); err != nil {
					return err
				}
				continue
			}
			rowid, payload, err := db.leafCell(n, i, cell)
			if err != nil {
				return err
			}
			rec, err := decodeRecord(payload)
			if err != nil {
				return damaged("row %d on page %d: %v", rowid, n, err)
			}
			if err := fn(rowid, rec); err != nil {
				return err
			}
		}
		if kind == 0x05 {
			return visit(binary.BigEndian.Uint32(p[h+8:h+12]), depth+1)
		}
		return nil
	}
	return visit(root, 0)
}

// leafCell reads a table leaf cell: its rowid and its whole payload,
// following overflow pages.
func (db *DB) leafCell(n uint32, i int, cell []byte) (int64, []byte, error) {
	size, k := uvarint(cell)
	if k == 0 {
		return 0, nil, damaged("cell %d of page %d is cut short", i, n)
	}
	rowid, k2 := uvarint(cell[k:])
	if k2 == 0 {
		return 0, nil, damaged("cell %d of page %d is cut short", i, n)
	}
	cell = cell[k+k2:]
	if size > uint64(len(db.data)) {
		return 0, nil, damaged("cell %d of page %d claims %d bytes, more than the file holds", i, n, size)
	}
	p := int(size)
	u := db.usable
	x := u - 35
	local := p
	if p > x {
		m := ((u-12)*32/255 - 23)
		local = m + (p-m)%(u-4)
		if local > x {
			local = m
		}
	}
	if local > len(cell) || (local < p && local+4 > len(cell)) {
		return 0, nil, damaged("cell %d of page %d runs past the end of its page", i, n)
	}
	if local == p {
		return int64(rowid), cell[:p], nil
	}
	out := make([]byte, 0, p)
	out = append(out, cell[:local]...)
	next := binary.BigEndian.Uint32(cell[local:])
	seen := map[uint32]bool{}
	for len(out) < p {
		if next == 0 {
			return 0, nil, damaged("the overflow pages of cell %d of page %d end %d bytes short", i, n, p-len(out))
		}
		if seen[next] {
			return 0, nil, damaged("overflow page %d is reached twice (a cycle of page pointers)", next)
		}
		seen[next] = true
		op, _, err := db.page(next)
		if err != nil {
			return 0, nil, err
		}
		take := min(u-4, p-len(out))
		out = append(out, op[4:4+take]...)
		next = binary.BigEndian.Uint32(op)
	}
	return int64(rowid), out, nil
}

// uvarint reads SQLite's big-endian varint: 1 to 9 bytes, the ninth
// whole. k is 0 when b ends first.
func uvarint(b []byte) (v uint64, k int) {
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, 9
}

// decodeRecord reads a record: a header of serial types, then values.
func decodeRecord(b []byte) ([]any, error) {
	hsize, k := uvarint(b)
	if k == 0 || hsize < uint64(k) || hsize > uint64(len(b)) {
		return nil, errors.New("its record header is cut short")
	}
	hdr := b[k:hsize]
	body := b[hsize:]
	var out []any
	for len(hdr) > 0 {
		st, n := uvarint(hdr)
		if n == 0 {
			return nil, errors.New("its record header is cut short")
		}
		hdr = hdr[n:]
		size, err := serialSize(st)
		if err != nil {
			return nil, err
		}
		if size > uint64(len(body)) {
			return nil, errors.New("a value runs past the end of its record")
		}
		v := body[:size]
		body = body[size:]
		switch {
		case st == 0:
			out = append(out, nil)
		case st <= 6:
			out = append(out, bigInt(v))
		case st == 7:
			out = append(out, math.Float64frombits(binary.BigEndian.Uint64(v)))
		case st == 8:
			out = append(out, int64(0))
		case st == 9:
			out = append(out, int64(1))
		case st%2 == 0:
			out = append(out, append([]byte(nil), v...))
		default:
			if !utf8.Valid(v) {
				return nil, errors.New("a text value is not UTF-8")
			}
			out = append(out, string(v))
		}
	}
	return out, nil
}

// serialSize is the size of a value of serial type st.
func serialSize(st uint64) (uint64, error) {
	switch {
	case st <= 4:
		return []uint64{0, 1, 2, 3, 4}[st], nil
	case st == 5:
		return 6, nil
	case st == 6 || st == 7:
		return 8, nil
	case st == 8 || st == 9:
		return 0, nil
	case st == 10 || st == 11:
		return 0, fmt.Errorf("serial type %d is reserved", st)
	}
	return (st - 12) / 2, nil
}

// bigInt reads a big-endian two's-complement integer of 1 to 8 bytes.
func bigInt(v []byte) int64 {
	var x int64
	if len(v) > 0 && v[0]&0x80 != 0 {
		x = -1
	}
	for _, c := range v {
		x = x<<8 | int64(c)
	}
	return x
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
