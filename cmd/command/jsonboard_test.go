package command

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/tdproject/td/repo/board"
)

// boardEncodingJSON is what encoding/json writes for the board, as
// emitJSON would.
func boardEncodingJSON(t testing.TB, b *board.Board) []byte {
	var want bytes.Buffer
	st := &streams{out: &want}
	if err := st.emitJSON(b); err != nil {
		t.Fatal(err)
	}
	return want.Bytes()
}

func TestBoardJSONMatchesEncodingJSON(t *testing.T) {
	full := sampleBoard()
	full.Epic = "td-a0b1c2"
	full.Columns[4].Cards[0].Updated = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	full.Columns[3].Cards[1].Labels = []string{}
	full.Columns[3].Cards[2].Labels = nil
	full.Columns[0].Cards[1].Title = "Quotes \" and \\ and <html> & \u2028 \x00\x1f bad \xff utf-8 🎉"
	many := &board.Board{RecentDays: 7, Columns: []board.Column{{Key: "open", Title: "Open"}}}
	for i := range 2000 {
		many.Columns[0].Cards = append(many.Columns[0].Cards, board.Card{ID: "td-" + string(rune('a'+i%26)), Title: "a card long enough to fill the buffer", Labels: []string{"x"}, Done: i})
	}
	for name, b := range map[string]*board.Board{
		"sample":            full,
		"no columns":        {RecentDays: 7},
		"empty columns":     {RecentDays: 1, Columns: []board.Column{}},
		"an empty column":   {RecentDays: 7, Columns: []board.Column{{Key: "open", Title: "Open", Cards: []board.Card{}}}},
		"more than a flush": many,
	} {
		var got bytes.Buffer
		if err := (boardJSON{b}).WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if want := boardEncodingJSON(t, b); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got.Bytes(), want)
		}
	}
}

func FuzzBoardJSON(f *testing.F) {
	f.Add("title", "label", "claim", int64(0))
	f.Add("\x00\"\\\u2028<>&", "a\xffb", "", int64(1_700_000_000_123_456_789))
	f.Fuzz(func(t *testing.T, title, label, claim string, updated int64) {
		b := &board.Board{RecentDays: 7, Epic: label, Columns: []board.Column{{Key: title, Title: label, Cards: []board.Card{
			{ID: label, Title: title, Labels: []string{label, title}, Claim: claim, Done: len(title), Updated: time.Unix(0, updated).UTC()},
		}}}}
		var got bytes.Buffer
		if err := (boardJSON{b}).WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if want := boardEncodingJSON(t, b); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("\n got %s\nwant %s", got.Bytes(), want)
		}
		var back map[string]any
		if err := json.Unmarshal(got.Bytes(), &back); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
	})
}
