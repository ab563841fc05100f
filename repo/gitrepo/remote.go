package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// The network: the one place td runs the git program. td sync exchanges
// claim references with a remote, and the remote may need the user's
// credentials: an ssh agent and ~/.ssh/config (hosts, keys, ProxyJump), a
// credential helper (the macOS keychain, Git Credential Manager, gh auth
// git-credential), url.<base>.insteadOf rules, http proxies and extra
// headers. go-git's transports handle an ssh agent and basic auth given
// in code, but not credential helpers, insteadOf or ssh_config, so a push
// that works with git would fail with td; and linking them would put
// their packages (ssh, TLS, HTTP) into every td start-up. Running git for
// this one step gives td exactly the user's access, and keeps every other
// command free of network code. Nothing else in td runs git.

// ErrNoGitProgram is wrapped by the errors Fetch and Push return when the
// git program is not installed.
var ErrNoGitProgram = errors.New("the git program is not installed")

// RemoteError is git failing to fetch from or push to a remote: the
// remote could not be reached, refused the credentials, or (for a push)
// rejected an update whose lease no longer held.
type RemoteError struct {
	Op     string // "fetch" or "push"
	Remote string
	Detail string // the last line git printed on standard error
	// Rejected lists the references a push was refused for, as git's
	// porcelain output named them.
	Rejected []string
}

func (e *RemoteError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("git %s %s failed", e.Op, e.Remote)
	}
	return fmt.Sprintf("git %s %s failed: %s", e.Op, e.Remote, e.Detail)
}

// ValidRemoteName reports whether name can be a remote's name in git's
// config: letters, digits, '-', '_' and '.', not starting with '-'.
func ValidRemoteName(name string) bool {
	if name == "" || name[0] == '-' || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// RemoteURL is the URL configured for the remote, "" when no remote of
// that name is configured.
func (r *Repo) RemoteURL(name string) string {
	if !ValidRemoteName(name) {
		return ""
	}
	return r.ConfigValue("remote", name, "url")
}

// git runs the git program in the work tree with the user's environment.
func (r *Repo) git(args ...string) (stdout, stderr []byte, err error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, nil, fmt.Errorf("%w: td sync runs it to reach the remote with your credentials", ErrNoGitProgram)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = r.root
	// No prompt for a password on a terminal td's caller cannot see: a
	// credential helper or an agent answers, or the step fails and says so.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.Bytes(), errOut.Bytes(), err
}

// lastLine is the last non-empty line of git's standard error.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// Fetch fetches the references src (a prefix such as refs/td/claims/)
// from remote into dst (refs/td/remote-claims/origin/), forced and pruned:
// afterwards dst mirrors what the remote has under src. Nothing else is
// fetched, no tags, no FETCH_HEAD, and no automatic gc runs.
func (r *Repo) Fetch(remote, src, dst string) error {
	if !ValidRemoteName(remote) {
		return fmt.Errorf("%q is not a remote name", remote)
	}
	for _, p := range []string{src, dst} {
		if !strings.HasPrefix(p, "refs/") || !strings.HasSuffix(p, "/") || !validRevName(strings.TrimSuffix(p, "/")) {
			return fmt.Errorf("%q is not a reference prefix", p)
		}
	}
	_, errOut, err := r.git("fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head", "--no-auto-gc", "--no-recurse-submodules",
		remote, "+"+src+"*:"+dst+"*")
	if err != nil {
		if errors.Is(err, ErrNoGitProgram) {
			return err
		}
		return &RemoteError{Op: "fetch", Remote: remote, Detail: lastLine(errOut)}
	}
	return nil
}

// LsRemote lists the references under prefix (refs/td/claims/) that the
// remote has, without fetching anything: one round trip, which is all a
// sync with nothing to do needs.
func (r *Repo) LsRemote(remote, prefix string) ([]Ref, error) {
	if !ValidRemoteName(remote) {
		return nil, fmt.Errorf("%q is not a remote name", remote)
	}
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") || !validRevName(strings.TrimSuffix(prefix, "/")) {
		return nil, fmt.Errorf("%q is not a reference prefix", prefix)
	}
	out, errOut, err := r.git("ls-remote", "--refs", remote, prefix+"*")
	if err != nil {
		if errors.Is(err, ErrNoGitProgram) {
			return nil, err
		}
		return nil, &RemoteError{Op: "ls-remote", Remote: remote, Detail: lastLine(errOut)}
	}
	var refs []Ref
	for _, line := range strings.Split(string(out), "\n") {
		hash, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok || !strings.HasPrefix(name, prefix) || !validRevName(name) {
			continue
		}
		if h, ok := parseFullHash(hash); ok {
			refs = append(refs, Ref{Name: name, Hash: h.String()})
		}
	}
	return refs, nil
}

// HasObject reports whether the repository has the object named hash.
func (r *Repo) HasObject(hash string) bool {
	h, ok := parseFullHash(hash)
	if !ok {
		return false
	}
	o := r.openObjects()
	defer o.close()
	_, _, err := o.read(h)
	return err == nil
}

// PushUpdate is one reference a push sets on the remote, under a lease.
type PushUpdate struct {
	Ref    string // the remote reference, refs/td/claims/td-k3x9qa
	New    string // the object to set it to; "" deletes it
	Expect string // what the remote must hold for the update to apply; "" for nothing
}

// Push sets the references on remote, atomically and each under its
// lease (--force-with-lease with the expected value): if the remote holds
// anything else for any of them, nothing changes there and the error is a
// *RemoteError listing the references rejected.
func (r *Repo) Push(remote string, updates []PushUpdate) error {
	if !ValidRemoteName(remote) {
		return fmt.Errorf("%q is not a remote name", remote)
	}
	if len(updates) == 0 {
		return nil
	}
	args := []string{"push", "--quiet", "--atomic", "--porcelain", "--no-verify"}
	var specs []string
	for _, u := range updates {
		if err := checkRefName(u.Ref); err != nil {
			return err
		}
		for _, h := range []string{u.New, u.Expect} {
			if _, ok := parseFullHash(h); h != "" && !ok {
				return fmt.Errorf("push %s: %q is not a full object name", u.Ref, h)
			}
		}
		args = append(args, "--force-with-lease="+u.Ref+":"+u.Expect)
		specs = append(specs, u.New+":"+u.Ref)
	}
	args = append(append(args, remote), specs...)
	out, errOut, err := r.git(args...)
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNoGitProgram) {
		return err
	}
	e := &RemoteError{Op: "push", Remote: remote, Detail: lastLine(errOut)}
	for _, line := range strings.Split(string(out), "\n") {
		// Porcelain: "<flag>\t<from>:<to>\t<summary>", flag ! for rejected.
		f := strings.Split(line, "\t")
		if len(f) >= 2 && f[0] == "!" {
			_, to, _ := strings.Cut(f[1], ":")
			e.Rejected = append(e.Rejected, to)
		}
	}
	return e
}
