package markdown

import "bytes"

// UnionLines merges two edits of an append-only file of lines (a JSONL
// ledger) as git's union merge does for td's ledgers: ours as it is, then
// every line theirs added (a line of theirs that is neither in the base nor
// in ours, counted with multiplicity), in theirs' order. No line either side
// added is lost and none is doubled; td check --base tells whether the
// result is still append-only against the base.
func UnionLines(base, ours, theirs []byte) []byte {
	seen := map[string]int{}
	for _, l := range splitLines(base) {
		seen[string(bytes.TrimRight(l, "\r\n"))]++
	}
	inOurs := map[string]int{}
	for _, l := range splitLines(ours) {
		inOurs[string(bytes.TrimRight(l, "\r\n"))]++
	}
	out := bytes.Clone(ours)
	for _, l := range splitLines(theirs) {
		k := string(bytes.TrimRight(l, "\r\n"))
		if seen[k] > 0 {
			seen[k]--
			inOurs[k]-- // the base's copy is the one ours kept
			continue
		}
		if inOurs[k] > 0 {
			inOurs[k]--
			continue
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, l...)
		if l[len(l)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	return out
}
