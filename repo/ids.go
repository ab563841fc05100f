package repo

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"
)

const (
	issueSuffixLen   = 6
	sessionSuffixLen = 8
	base36           = "0123456789abcdefghijklmnopqrstuvwxyz"
)

// The validators below are written out rather than compiled from regular
// expressions: they run for every file name td lists, and compiling patterns
// at start-up costs more than td's whole --version.

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// allLowerAlnum reports whether s is non-empty lowercase letters and digits.
func allLowerAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLowerAlnum(s[i]) {
			return false
		}
	}
	return s != ""
}

// ValidPrefix reports whether p can prefix issue IDs: a lowercase letter
// followed by up to 15 lowercase letters or digits.
func ValidPrefix(p string) bool {
	return len(p) >= 1 && len(p) <= 16 && p[0] >= 'a' && p[0] <= 'z' && allLowerAlnum(p)
}

// ValidIssueID reports whether id has the form <prefix>-<6 base36>. Only a
// valid ID is ever turned into a path.
func ValidIssueID(id string) bool {
	n := len(id) - issueSuffixLen - 1
	return n >= 1 && id[n] == '-' && ValidPrefix(id[:n]) && allLowerAlnum(id[n+1:])
}

// ValidSessionID reports whether id has the form ses_<8 base36>.
func ValidSessionID(id string) bool {
	return len(id) == 4+sessionSuffixLen && id[:4] == "ses_" && allLowerAlnum(id[4:])
}

// validRef reports whether r may be part of an issue ID: a lowercase letter
// or digit, then up to 40 letters, digits or dashes. Nothing else (no '/',
// '.', '\\') can reach a path.
func validRef(r string) bool {
	if len(r) == 0 || len(r) > 41 || !isLowerAlnum(r[0]) {
		return false
	}
	for i := 1; i < len(r); i++ {
		if !isLowerAlnum(r[i]) && r[i] != '-' {
			return false
		}
	}
	return true
}

// idSource produces random base36 strings: from crypto/rand, or from a
// deterministic sequence when TD_RAND_SEED is set (test scenarios only).
type idSource struct {
	seed string
	next func() (uint64, error) // sequence number for seeded mode
}

func (s idSource) Suffix(n int) (string, error) {
	if s.seed == "" {
		return randomBase36(n)
	}
	seq, err := s.next()
	if err != nil {
		return "", err
	}
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], seq)
	sum := sha256.Sum256(append([]byte(s.seed+"\x00"), buf[:]...))
	v := new(big.Int).SetBytes(sum[:])
	return encodeBase36(v, n), nil
}

func randomBase36(n int) (string, error) {
	max := new(big.Int).Exp(big.NewInt(36), big.NewInt(int64(n)), nil)
	v, err := rand.Int(rand.Reader, max)
	if err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return encodeBase36(v, n), nil
}

func encodeBase36(v *big.Int, n int) string {
	v = new(big.Int).Set(v)
	b := make([]byte, n)
	m := new(big.Int)
	b36 := big.NewInt(36)
	for i := n - 1; i >= 0; i-- {
		v.DivMod(v, b36, m)
		b[i] = base36[m.Int64()]
	}
	return string(b)
}

// normalizeRef lowercases and validates an issue reference typed by a user
// before it is compared with anything or turned into a path.
func NormalizeRef(ref string) (string, error) {
	r := strings.ToLower(strings.TrimSpace(ref))
	if !validRef(r) {
		return "", Errorf(CodeInvalid, "%q is not an issue ID: IDs look like td-k3x9qa (letters, digits and one dash)", ref)
	}
	return r, nil
}
