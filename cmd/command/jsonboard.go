package command

import (
	"io"
	"strconv"
	"time"

	"github.com/tdproject/td/repo/board"
)

// boardJSON is td board --json: the board's model, written as
// encoding/json with a two-space indent would write it, without
// reflection, as td list --json is (at 10,000 issues reflection costs a
// third of the command). TestBoardJSONMatchesEncodingJSON holds it to
// encoding/json byte for byte.
type boardJSON struct{ *board.Board }

// WriteJSON writes the board.
func (bj boardJSON) WriteJSON(w io.Writer) error {
	b := make([]byte, 0, 64<<10)
	flush := func() error {
		if len(b) < 60<<10 {
			return nil
		}
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	b = append(b, "{\n  \"columns\": "...)
	if bj.Columns == nil {
		b = append(b, "null"...)
	} else if len(bj.Columns) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, "[\n"...)
		for i, c := range bj.Columns {
			b = append(b, "    {\n"...)
			b = jsonKey(b, 6, "key")
			b = appendJSONString(b, c.Key)
			b = append(b, ",\n"...)
			b = jsonKey(b, 6, "title")
			b = appendJSONString(b, c.Title)
			b = append(b, ",\n"...)
			b = jsonKey(b, 6, "cards")
			switch {
			case c.Cards == nil:
				b = append(b, "null"...)
			case len(c.Cards) == 0:
				b = append(b, "[]"...)
			default:
				b = append(b, "[\n"...)
				for k := range c.Cards {
					b = appendCardJSON(b, &c.Cards[k])
					if k < len(c.Cards)-1 {
						b = append(b, ',')
					}
					b = append(b, '\n')
					if err := flush(); err != nil {
						return err
					}
				}
				b = append(b, "      ]"...)
			}
			b = append(b, "\n    }"...)
			if i < len(bj.Columns)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, "  ]"...)
	}
	b = append(b, ",\n"...)
	if bj.Epic != "" {
		b = jsonKey(b, 2, "epic")
		b = appendJSONString(b, bj.Epic)
		b = append(b, ",\n"...)
	}
	b = jsonKey(b, 2, "recent_days")
	b = strconv.AppendInt(b, int64(bj.RecentDays), 10)
	b = append(b, "\n}\n"...)
	_, err := w.Write(b)
	return err
}

// appendCardJSON appends one card, indented as an element of a column's
// cards.
func appendCardJSON(b []byte, k *board.Card) []byte {
	const in = 10
	b = append(b, "        {\n"...)
	for _, f := range [...]struct{ key, value string }{
		{"id", k.ID}, {"title", k.Title}, {"priority", k.Priority}, {"type", k.Type}, {"status", k.Status}, {"assignee", k.Assignee},
	} {
		b = jsonKey(b, in, f.key)
		b = appendJSONString(b, f.value)
		b = append(b, ",\n"...)
	}
	b = jsonKey(b, in, "labels")
	if k.Labels == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONStrings(b, k.Labels, "          ")
	}
	for _, f := range [...]struct {
		key   string
		value int
	}{
		{"done", k.Done}, {"total", k.Total}, {"open_criteria", k.OpenCriteria}, {"children_closed", k.ChildrenClosed}, {"children", k.Children},
	} {
		b = append(b, ",\n"...)
		b = jsonKey(b, in, f.key)
		b = strconv.AppendInt(b, int64(f.value), 10)
	}
	if k.ChildrenUnreadable > 0 {
		b = append(b, ",\n"...)
		b = jsonKey(b, in, "children_unreadable")
		b = strconv.AppendInt(b, int64(k.ChildrenUnreadable), 10)
	}
	if k.Claim != "" {
		b = append(b, ",\n"...)
		b = jsonKey(b, in, "claim")
		b = appendJSONString(b, k.Claim)
	}
	if !k.Updated.IsZero() {
		b = append(b, ",\n"...)
		b = jsonKey(b, in, "updated")
		b = append(b, '"')
		b = k.Updated.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	return append(b, "\n        }"...)
}

// jsonKey appends `"key": ` indented by n spaces.
func jsonKey(b []byte, n int, key string) []byte {
	for range n {
		b = append(b, ' ')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, `": `...)
}
