package repo

import (
	"strings"
	"testing"
)

// A config td cannot read is refused in one line naming the file, the
// line, the key and what belongs there.
func TestParseConfigErrorsAreOneLine(t *testing.T) {
	base := "id_prefix: td\noperators: []\nfeatures: {}\ngit:\n  mode: stage\nlanguage: \"\"\n"
	for _, tt := range []struct {
		name, from, to, want string
	}{
		{"a word for a flag", "features: {}", "features: {ready: maybe}", `c.yaml:3: features.ready: the text "maybe" where true or false belongs; td help config describes every key`},
		{"a list for a word", `language: ""`, "language: [a, b]", "c.yaml:6: language: a list where a single value belongs; td help config describes every key"},
		{"a number for a section", "git:\n  mode: stage", "git: 5", "c.yaml:4: git: the number 5 where a mapping belongs; td help config describes every key"},
		{"a list for flags", "features: {}", "features: [a]", "c.yaml:3: features: a list where a mapping belongs; td help config describes every key"},
		{"an unknown key", "  mode: stage", "  mood: stage", "c.yaml:5: unknown key mood; td help config lists the keys"},
		{"two problems", "features: {}\ngit:\n  mode: stage\nlanguage: \"\"", "features: {ready: maybe}\ngit:\n  mode: stage\nlanguage: [a]", `c.yaml:3: features.ready: the text "maybe" where true or false belongs; td help config describes every key (and 1 more problem)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(base, tt.from, tt.to, 1)
			if data == base {
				t.Fatalf("%q is not in the config", tt.from)
			}
			_, err := ParseConfig("c.yaml", []byte(data))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant  %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatal("more than one line")
			}
		})
	}
}

func TestUnknownFeatureVars(t *testing.T) {
	for _, tt := range []struct {
		name    string
		environ []string
		want    string
	}{
		{"none", []string{"HOME=/h", "TD_NOW=x"}, ""},
		{"a known flag", []string{"TD_FEATURE_BALANCED_REVIEW_POLICY=0"}, ""},
		{"a typo", []string{"TD_FEATURE_NOPE=1", "PATH=/bin"}, "TD_FEATURE_NOPE"},
		{"the wrong case", []string{"TD_FEATURE_balanced_review_policy=1"}, "TD_FEATURE_balanced_review_policy"},
		{"empty is unset", []string{"TD_FEATURE_NOPE=", "TD_FEATURE_X= "}, ""},
		{"sorted", []string{"TD_FEATURE_Z=1", "TD_FEATURE_A=1"}, "TD_FEATURE_A TD_FEATURE_Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(UnknownFeatureVars(tt.environ), " "); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The claims section: where claims are published, and whether at once.
func TestClaimsConfig(t *testing.T) {
	for _, tt := range []struct {
		name, claims string
		remote       string
		publish      bool
		err          string
	}{
		{"unset: origin, at once", "", "origin", true, ""},
		{"another remote", "claims:\n  remote: upstream\n", "upstream", true, ""},
		{"off for an offline team", "claims:\n  publish: false\n", "origin", false, ""},
		{"on, said", "claims:\n  publish: true\n  ttl: 45m\n", "origin", true, ""},
		{"a remote name git would refuse", "claims:\n  remote: -x\n", "", false, `c.yaml: claims.remote "-x" must be the name of a git remote, such as origin`},
		{"a URL is not a remote name", "claims:\n  remote: git@host:app.git\n", "", false, `c.yaml: claims.remote "git@host:app.git" must be the name of a git remote, such as origin`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig("c.yaml", []byte("id_prefix: td\n"+tt.claims))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.ClaimsRemote() != tt.remote || c.PublishClaims() != tt.publish {
				t.Fatalf("remote %q, publish %v; want %q, %v", c.ClaimsRemote(), c.PublishClaims(), tt.remote, tt.publish)
			}
		})
	}
}
