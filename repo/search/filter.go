package search

import "math/bits"

// A filter answers "may this issue hold this word?" without reading the
// issue: a Bloom filter of the three-byte sequences (trigrams) of the
// case-folded text a search looks in. A word found in a text has all of
// its trigrams in that text, so a filter never says no to an issue that
// matches; it says yes to about one in four issues per trigram it lacks,
// so a word of seven letters (five trigrams) passes some 0.1% of the
// issues that do not hold it, and those are read and searched as usual.
// A word shorter than three bytes has no trigram and passes every filter.
//
// The filter is one byte holding log2 of its size in bits, then the bits:
// at least twice as many bits as the text has distinct trigrams, rounded
// up to a power of two, between 64 bits and 64 Kbits.
type filter []byte

const (
	minFilterLog = 6
	maxFilterLog = 16
)

// trigramHash spreads a trigram over 32 bits; a filter of 2^k bits takes
// the top k. It is part of the cache's format: changing it changes what
// every stored filter means, and so the cache's version.
func trigramHash(a, b, c byte) uint32 {
	return (uint32(a) | uint32(b)<<8 | uint32(c)<<16) * 0x9E3779B1
}

// newFilter builds the filter of texts, each already case-folded. The
// trigrams go first into a filter of the largest size, whose set bits
// count the distinct trigrams (nearly: two may share a bit), and that one
// is folded down to the size the count asks for: a bit of a filter of 2^k
// bits is the top k bits of a hash, the top bits of a bit of the largest.
func newFilter(texts ...string) filter {
	var full [1 << maxFilterLog / 64]uint64
	for _, t := range texts {
		for i := 0; i+3 <= len(t); i++ {
			b := trigramHash(t[i], t[i+1], t[i+2]) >> (32 - maxFilterLog)
			full[b/64] |= 1 << (b % 64)
		}
	}
	n := 0
	for _, w := range full {
		n += bits.OnesCount64(w)
	}
	k := minFilterLog
	if n > 0 {
		k = min(max(minFilterLog, bits.Len(uint(2*n-1))), maxFilterLog)
	}
	f := make(filter, 1+(1<<k)/8)
	f[0] = byte(k)
	for i, w := range full {
		for w != 0 {
			b := uint32(i*64 + bits.TrailingZeros64(w))
			w &= w - 1
			f.set(b >> (maxFilterLog - k))
		}
	}
	return f
}

func (f filter) set(bit uint32)      { f[1+bit/8] |= 1 << (bit % 8) }
func (f filter) has(bit uint32) bool { return f[1+bit/8]&(1<<(bit%8)) != 0 }

// valid reports whether f has the layout newFilter gives: a stored filter
// is checked before any bit of it is read.
func (f filter) valid() bool {
	return len(f) > 0 && f[0] >= minFilterLog && f[0] <= maxFilterLog && len(f) == 1+(1<<f[0])/8
}

// mayHold reports whether a text the filter was built from may hold word
// (case-folded): false only when some trigram of word is in none.
func (f filter) mayHold(word string) bool {
	k := uint32(f[0])
	for i := 0; i+3 <= len(word); i++ {
		if !f.has(trigramHash(word[i], word[i+1], word[i+2]) >> (32 - k)) {
			return false
		}
	}
	return true
}
