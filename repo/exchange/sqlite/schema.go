package sqlite

import (
	"errors"
	"strings"
)

// tableDef is what a CREATE TABLE statement says about how rows are
// stored: the column names in order, the column that is the rowid (an
// INTEGER PRIMARY KEY, stored as NULL in the record), and WITHOUT ROWID.
type tableDef struct {
	columns []string
	// real marks the columns of REAL affinity, whose values SQLite may
	// store as integers and reads back as floats.
	real         []bool
	rowidCol     int
	withoutRowid bool
}

// constraintWords open a table constraint rather than a column.
var constraintWords = map[string]bool{"constraint": true, "primary": true, "unique": true, "check": true, "foreign": true}

// parseCreateTable reads the columns of a CREATE TABLE statement as
// SQLite keeps it in its schema (ALTER TABLE ADD COLUMN rewrites it).
func parseCreateTable(sql string) (tableDef, error) {
	toks, err := tokenize(sql)
	if err != nil {
		return tableDef{}, err
	}
	def := tableDef{rowidCol: -1}
	open := -1
	for i, t := range toks {
		if t.text == "(" {
			open = i
			break
		}
		if t.text == "as" && !t.quoted {
			return def, errors.New("a table made with CREATE TABLE ... AS has no column list td reads")
		}
	}
	if open < 0 {
		return def, errors.New("its CREATE TABLE statement has no column list")
	}
	depth := 0
	var defs [][]token
	var cur []token
	end := -1
	for i := open + 1; i < len(toks) && end < 0; i++ {
		t := toks[i]
		switch {
		case t.text == "(" && !t.quoted:
			depth++
		case t.text == ")" && !t.quoted:
			if depth == 0 {
				end = i
				continue
			}
			depth--
		case t.text == "," && !t.quoted && depth == 0:
			defs = append(defs, cur)
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	if end < 0 {
		return def, errors.New("its CREATE TABLE statement's column list is not closed")
	}
	defs = append(defs, cur)
	types := map[string]string{}
	var pkCols []string
	for _, d := range defs {
		if len(d) == 0 {
			return def, errors.New("its CREATE TABLE statement has an empty column definition")
		}
		if !d[0].quoted && constraintWords[d[0].text] {
			// PRIMARY KEY (col) of one INTEGER column makes it the rowid.
			if d[0].text == "primary" && len(d) >= 5 && d[1].text == "key" && d[2].text == "(" && d[4].text == ")" {
				pkCols = append(pkCols, d[3].raw)
			}
			continue
		}
		name := d[0].raw
		def.columns = append(def.columns, name)
		typ := ""
		if len(d) > 1 && !d[1].quoted {
			typ = d[1].text
		}
		types[strings.ToLower(name)] = typ
		def.real = append(def.real, realAffinity(d[1:]))
		for j := 1; j+1 < len(d); j++ {
			if d[j].text == "primary" && d[j+1].text == "key" && !d[j].quoted && typ == "integer" {
				if !(j+2 < len(d) && d[j+2].text == "desc") {
					def.rowidCol = len(def.columns) - 1
				}
			}
		}
	}
	if len(pkCols) == 1 && def.rowidCol < 0 && types[strings.ToLower(pkCols[0])] == "integer" {
		for i, c := range def.columns {
			if equalFold(c, pkCols[0]) {
				def.rowidCol = i
			}
		}
	}
	for _, t := range toks[end+1:] {
		if t.text == "rowid" && !t.quoted {
			def.withoutRowid = true
		}
	}
	if len(def.columns) == 0 {
		return def, errors.New("its CREATE TABLE statement names no columns")
	}
	return def, nil
}

// columnWords end a column's declared type.
var columnWords = map[string]bool{"constraint": true, "primary": true, "not": true, "null": true, "unique": true,
	"check": true, "default": true, "collate": true, "references": true, "generated": true, "as": true}

// realAffinity reports whether a column whose definition after its name
// is d has REAL affinity, by SQLite's rules: its declared type holds
// REAL, FLOA or DOUB, and none of INT, CHAR, CLOB, TEXT or BLOB.
func realAffinity(d []token) bool {
	var typ strings.Builder
	for _, t := range d {
		if !t.quoted && columnWords[t.text] {
			break
		}
		typ.WriteString(t.text + " ")
	}
	s := typ.String()
	for _, w := range []string{"int", "char", "clob", "text", "blob"} {
		if strings.Contains(s, w) {
			return false
		}
	}
	return strings.Contains(s, "real") || strings.Contains(s, "floa") || strings.Contains(s, "doub")
}

// token is one word, quoted name, literal or punctuation mark of SQL.
// text is lower case for a bare word; raw is a name as written, unquoted.
type token struct {
	text, raw string
	quoted    bool
}

// tokenize splits SQL into tokens, skipping comments and white space.
func tokenize(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return nil, errors.New("its CREATE TABLE statement has a comment that is not closed")
			}
			i += j + 4
		case c == '"' || c == '`' || c == '\'' || c == '[':
			closeBy := c
			if c == '[' {
				closeBy = ']'
			}
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, errors.New("its CREATE TABLE statement has a quote that is not closed")
				}
				if s[j] == closeBy {
					if closeBy != ']' && j+1 < len(s) && s[j+1] == closeBy {
						b.WriteByte(closeBy)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			raw := b.String()
			out = append(out, token{text: strings.ToLower(raw), raw: raw, quoted: true})
			i = j + 1
		case isWord(c):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			out = append(out, token{text: strings.ToLower(s[i:j]), raw: s[i:j]})
			i = j
		default:
			out = append(out, token{text: s[i : i+1], raw: s[i : i+1]})
			i++
		}
	}
	return out, nil
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}
