package repo

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

const (
	issueSuffixLen   = 6
	sessionSuffixLen = 8
	base36           = "0123456789abcdefghijklmnopqrstuvwxyz"
)

var (
	prefixRE    = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)
	issueIDRE   = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}-[0-9a-z]{6}$`)
	sessionIDRE = regexp.MustCompile(`^ses_[0-9a-z]{8}$`)
	idRefRE     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,40}$`)
	agentPathRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}(\.[a-z0-9][a-z0-9_-]{0,63}){0,15}$`)
)

// ValidPrefix reports whether p can prefix issue IDs: a lowercase letter
// followed by up to 15 lowercase letters or digits.
func ValidPrefix(p string) bool { return prefixRE.MatchString(p) }

// ValidIssueID reports whether id has the form <prefix>-<6 base36>. Only a
// valid ID is ever turned into a path.
func ValidIssueID(id string) bool { return issueIDRE.MatchString(id) }

// ValidSessionID reports whether id has the form ses_<8 base36>.
func ValidSessionID(id string) bool { return sessionIDRE.MatchString(id) }

// ValidAgentPath reports whether p is a dotted agent tree path such as
// "primary" or "primary.subagents.ui".
func ValidAgentPath(p string) bool { return agentPathRE.MatchString(p) }

// idSource produces random base36 strings: from crypto/rand, or from a
// deterministic sequence when TD_RAND_SEED is set (test scenarios only).
type idSource struct {
	seed string
	next func() (uint64, error) // sequence number for seeded mode
}

func (s idSource) suffix(n int) (string, error) {
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
func normalizeRef(ref string) (string, error) {
	r := strings.ToLower(strings.TrimSpace(ref))
	if !idRefRE.MatchString(r) {
		return "", errorf(CodeInvalid, "%q is not an issue ID: IDs look like td-k3x9qa (letters, digits and one dash)", ref)
	}
	return r, nil
}
