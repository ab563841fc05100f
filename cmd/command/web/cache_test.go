package web

import (
	"strings"
	"testing"
)

func TestPageCache(t *testing.T) {
	type op struct {
		add, get string // add key (its body: body), or get key
		body     string
	}
	for _, c := range []struct {
		name       string
		maxEntries int
		maxBytes   int64
		ops        []op
		want       string // the keys kept, most recently used first
		bytes      int64
	}{
		{"under the bounds", 3, 100, []op{{add: "a", body: "1"}, {add: "b", body: "22"}}, "b a", 5},
		{"by entries the least recently added goes", 2, 100,
			[]op{{add: "a", body: "1"}, {add: "b", body: "2"}, {add: "c", body: "3"}}, "c b", 4},
		{"a get keeps a page", 2, 100,
			[]op{{add: "a", body: "1"}, {add: "b", body: "2"}, {get: "a"}, {add: "c", body: "3"}}, "c a", 4},
		{"by bytes as many go as it takes", 5, 10,
			[]op{{add: "a", body: "1234"}, {add: "b", body: "12"}, {add: "c", body: "123"}, {add: "d", body: "1234"}}, "d c", 9},
		{"a page larger than the bound is not kept", 5, 10,
			[]op{{add: "a", body: "12"}, {add: "big", body: strings.Repeat("x", 10)}}, "a", 3},
		{"a page larger than the bound drops the older page of its key", 5, 10,
			[]op{{add: "a", body: "12"}, {add: "a", body: strings.Repeat("x", 10)}}, "", 0},
		{"adding a key again replaces its page", 5, 100,
			[]op{{add: "a", body: "1"}, {add: "b", body: "2"}, {add: "a", body: "333"}}, "a b", 6},
		{"no entries keeps nothing", 0, 100, []op{{add: "a", body: "1"}}, "", 0},
		{"a get of a page not kept", 2, 100, []op{{add: "a", body: "1"}, {get: "zz"}}, "a", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			pc := newPageCache(c.maxEntries, c.maxBytes)
			for _, o := range c.ops {
				if o.add != "" {
					pc.add(o.add, []byte(o.body))
				} else {
					pc.get(o.get)
				}
			}
			var keys []string
			for e := pc.order.Front(); e != nil; e = e.Next() {
				keys = append(keys, e.Value.(*cached).key)
			}
			if got := strings.Join(keys, " "); got != c.want || pc.size() != c.bytes || pc.len() != len(keys) || len(pc.byKey) != len(keys) {
				t.Errorf("kept %q (%d bytes, len %d, %d in the map), want %q (%d bytes)", got, pc.size(), pc.len(), len(pc.byKey), c.want, c.bytes)
			}
			for _, k := range keys {
				if _, ok := pc.get(k); !ok {
					t.Errorf("get(%q) found nothing", k)
				}
			}
			pc.clear()
			if pc.len() != 0 || pc.size() != 0 {
				t.Errorf("after clear: %d pages, %d bytes", pc.len(), pc.size())
			}
		})
	}
}
