package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/gitrepo"
	"gopkg.in/yaml.v3"
)

// Git modes (config git.mode).
const (
	GitModeStage = "stage" // td stages the files it writes (default)
	GitModeAuto  = "auto"  // td commits its own paths
	GitModeOff   = "off"   // td only writes files
)

// Config is .todos/config.yaml.
type Config struct {
	IDPrefix  string                 `yaml:"id_prefix"`
	Operators []string               `yaml:"operators"`
	Features  map[string]bool        `yaml:"features"`
	Git       GitConfig              `yaml:"git"`
	Language  string                 `yaml:"language"`
	Agents    map[string]AgentConfig `yaml:"agents"`
	MetaPaths []string               `yaml:"meta_paths"`
	Claims    ClaimsConfig           `yaml:"claims"`
}

// ClaimsConfig is the claims section of the config.
type ClaimsConfig struct {
	// TTL is how long a claim's lease runs from its last renewal, as a Go
	// duration ("2h", "45m"); DefaultClaimTTL when empty.
	TTL string `yaml:"ttl"`
	// Remote is the git remote td publishes claims to and td sync
	// exchanges them with; "" for origin (ClaimsRemote).
	Remote string `yaml:"remote"`
	// Publish, when false, keeps claims local until td sync: td start,
	// td send, td reclaim and the commands that release a claim then do
	// not reach the remote. Unset means true.
	Publish *bool `yaml:"publish"`
}

// DefaultClaimsRemote is the remote claims go to when claims.remote is
// not set.
const DefaultClaimsRemote = "origin"

// ClaimsRemote is the remote claims are published to and synced with:
// claims.remote, else origin.
func (c *Config) ClaimsRemote() string {
	if c.Claims.Remote != "" {
		return c.Claims.Remote
	}
	return DefaultClaimsRemote
}

// PublishClaims reports whether commands that take or release a claim
// publish it to the claims remote at once (claims.publish, default true).
func (c *Config) PublishClaims() bool {
	return c.Claims.Publish == nil || *c.Claims.Publish
}

// DefaultClaimTTL is the lease of a claim when the config sets none.
const DefaultClaimTTL = 2 * time.Hour

// ClaimTTL is the lease a claim is given, from claims.ttl.
func (c *Config) ClaimTTL() time.Duration {
	if d, err := time.ParseDuration(c.Claims.TTL); err == nil && d > 0 {
		return d
	}
	return DefaultClaimTTL
}

// GitConfig is the git section of the config.
type GitConfig struct {
	Mode string `yaml:"mode"`
	// Batch, in git mode auto, makes td stage its writes and note their
	// trailers, for td commit to make one commit of them (batch.go).
	Batch bool `yaml:"batch"`
}

// AgentConfig holds per-agent settings keyed by agent path.
type AgentConfig struct {
	TodoReview string `yaml:"todo_review"`
}

// DefaultMetaPaths are the governance paths only meta sessions (and operators)
// may change directly.
var DefaultMetaPaths = []string{
	".todos/config.yaml",
	".todos/history/",
	".todos/sessions/",
	".todos/security_events.jsonl",
	".todos/anchors.md",
	".todos/.gitignore",
	".gitattributes",
}

func ParseConfig(path string, data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return nil, configTypeError(path, data, te.Errors)
		}
		return nil, &ParseError{Path: path, Line: YAMLErrorLine(err), Msg: YAMLErrorMsg(err)}
	}
	if c.IDPrefix == "" {
		c.IDPrefix = "td"
	}
	if !ValidPrefix(c.IDPrefix) {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("id_prefix %q must be a lowercase letter followed by up to 15 letters or digits", c.IDPrefix)}
	}
	switch c.Git.Mode {
	case "":
		c.Git.Mode = GitModeStage
	case GitModeStage, GitModeAuto, GitModeOff:
	default:
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("git.mode %q must be stage, auto or off", c.Git.Mode)}
	}
	if c.Claims.TTL != "" {
		if d, err := time.ParseDuration(c.Claims.TTL); err != nil || d < time.Second {
			return nil, &ParseError{Path: path, Msg: fmt.Sprintf("claims.ttl %q must be a duration of a second or more, such as 2h or 45m", c.Claims.TTL)}
		}
	}
	if c.Claims.Remote != "" && !gitrepo.ValidRemoteName(c.Claims.Remote) {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("claims.remote %q must be the name of a git remote, such as origin", c.Claims.Remote)}
	}
	if c.MetaPaths == nil {
		c.MetaPaths = DefaultMetaPaths
	}
	agents := make([]string, 0, len(c.Agents))
	for agent := range c.Agents {
		agents = append(agents, agent)
	}
	sort.Strings(agents)
	for _, agent := range agents {
		if !domain.AgentPath(agent).Valid() {
			return nil, &ParseError{Path: path, Msg: fmt.Sprintf("agents: %q is not an agent path such as primary or primary.subagents.ui", agent)}
		}
		if err := policy.ValidTodoReview(c.Agents[agent].TodoReview); err != nil {
			return nil, &ParseError{Path: path, Msg: fmt.Sprintf("agents.%s.%v", agent, err)}
		}
	}
	return &c, nil
}

// TodoReview is the todo_review mode for proposals from the agent at path:
// its agents entry, else review.
func (c *Config) TodoReview(path domain.AgentPath) string {
	if m := c.Agents[string(path)].TodoReview; m != "" {
		return m
	}
	return policy.TodoReviewReview
}

// IsOperator reports whether the git identity "Name <email>" (or a bare
// email or name) is listed in operators, by the one canonical form td
// compares identities in (domain.IdentityKey): an entry with an email
// matches that email whatever its case and whatever the name beside it;
// an entry without one matches the name, case ignored.
func (c *Config) IsOperator(name, email string) bool {
	for _, op := range c.Operators {
		if OperatorMatches(op, name, email) {
			return true
		}
	}
	return false
}

// OperatorMatches reports whether the operators: entry op names the git
// identity with this name and email (IsOperator's comparison).
func OperatorMatches(op, name, email string) bool {
	n, e := SplitIdentity(op)
	switch {
	case e != "":
		return email != "" && domain.IdentityKey("<"+e+">") == domain.IdentityKey("<"+email+">")
	case n != "":
		return domain.IdentityKey(n) == domain.IdentityKey(name)
	}
	return false
}

// SplitIdentity splits a git identity "Name <email>" (domain.SplitIdentity).
func SplitIdentity(s string) (name, email string) { return domain.SplitIdentity(s) }

func renderInitialConfig(prefix, operator, mode string) []byte {
	var b strings.Builder
	b.WriteString("# td configuration. Committed: every clone shares it.\n")
	b.WriteString("# Issue IDs are <id_prefix>-<6 base36>.\n")
	fmt.Fprintf(&b, "id_prefix: %s\n", prefix)
	b.WriteString("# Git identities (\"Name <email>\") allowed to act as operators.\n")
	if operator == "" {
		b.WriteString("operators: []\n")
	} else {
		b.WriteString("operators:\n")
		fmt.Fprintf(&b, "  - %s\n", yamlScalar(operator))
	}
	b.WriteString("# Feature flags; td feature list shows every flag and its source.\n")
	b.WriteString("features: {}\n")
	b.WriteString("git:\n")
	b.WriteString("  # stage: td stages what it writes; auto: td commits its own paths; off: files only.\n")
	fmt.Fprintf(&b, "  mode: %s\n", mode)
	b.WriteString("# Language every agent context block asks for (empty: no preference).\n")
	b.WriteString("language: \"\"\n")
	b.WriteString("# Per-agent settings keyed by agent path, e.g. primary.subagents.ui: {todo_review: auto}\n")
	b.WriteString("agents: {}\n")
	b.WriteString("# Governance paths: only meta sessions and operators change them directly.\n")
	b.WriteString("meta_paths:\n")
	for _, p := range DefaultMetaPaths {
		fmt.Fprintf(&b, "  - %s\n", p)
	}
	return []byte(b.String())
}

// yamlScalar renders s as a one-line YAML scalar, quoting when needed.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// configTypeError turns yaml.v3's list of type errors ("line 8: cannot
// unmarshal !!str `maybe` into bool", one line each) into one line: the
// first problem, with its key and what belongs there, and how many more.
func configTypeError(path string, data []byte, errs []string) *ParseError {
	line, msg := splitYAMLError(errors.New(strings.TrimSpace(errs[0])))
	if field, ok := strings.CutPrefix(msg, "field "); ok {
		if name, _, ok := strings.Cut(field, " not found"); ok {
			msg = fmt.Sprintf("unknown key %s; td help config lists the keys", name)
		}
	} else if got, want, ok := describeYAMLType(msg); ok {
		key := configKeyAt(data, line)
		if key != "" {
			key += ": "
		}
		msg = fmt.Sprintf("%s%s where %s belongs; td help config describes every key", key, got, want)
	}
	if n := len(errs) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more %s)", n, domain.Plural(n, "problem", "problems"))
	}
	return &ParseError{Path: path, Line: line, Msg: msg}
}

// describeYAMLType reads "cannot unmarshal !!TAG [`value`] into GOTYPE" as
// what was written and what belongs there, in words.
func describeYAMLType(msg string) (got, want string, ok bool) {
	rest, ok := strings.CutPrefix(msg, "cannot unmarshal !!")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, " into ")
	if i < 0 {
		return "", "", false
	}
	tagValue, goType := rest[:i], rest[i+len(" into "):]
	tag, value, _ := strings.Cut(tagValue, " ")
	value = strings.Trim(value, "`")
	switch tag {
	case "seq":
		got = "a list"
	case "map":
		got = "a mapping"
	case "str":
		got = fmt.Sprintf("the text %q", value)
	case "int", "float":
		got = "the number " + value
	default:
		got = strings.TrimSpace(value + " (" + tag + ")")
	}
	switch {
	case goType == "bool":
		want = "true or false"
	case goType == "string":
		want = "a single value"
	case strings.HasPrefix(goType, "[]"):
		want = "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "repo."):
		want = "a mapping"
	default:
		want = "a " + goType
	}
	return got, want, true
}

// configKeyAt returns the dotted key whose value starts on line, such as
// features.ready, or "" when none does.
func configKeyAt(data []byte, line int) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return ""
	}
	var walk func(n *yaml.Node, prefix string) string
	walk = func(n *yaml.Node, prefix string) string {
		if n.Kind != yaml.MappingNode {
			return ""
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := k.Value
			if prefix != "" {
				key = prefix + "." + key
			}
			if v.Line == line || k.Line == line && v.Kind != yaml.MappingNode {
				if found := walk(v, key); found != "" {
					return found
				}
				return key
			}
			if found := walk(v, key); found != "" {
				return found
			}
		}
		return ""
	}
	return walk(doc.Content[0], "")
}
