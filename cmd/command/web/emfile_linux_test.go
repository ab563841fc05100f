package web_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/repo"
)

// TestServeOutOfDescriptors runs td serve's server in a process allowed
// a few file descriptors more than it has open, connects more clients than
// it can take, and checks that it waits (the system's EMFILE on accept is
// retried) rather than exits, then serves once the clients are gone.
func TestServeOutOfDescriptors(t *testing.T) {
	if os.Getenv("TD_TEST_EMFILE_CHILD") == "1" {
		emfileChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeOutOfDescriptors$")
	cmd.Env = append(os.Environ(), "TD_TEST_EMFILE_CHILD=1", "TD_TEST_EMFILE_DIR="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "serving ") {
		stdin.Close()
		t.Fatalf("the server did not start: %q\n%s", lines.Text(), stderr.String())
	}
	addr := strings.TrimPrefix(lines.Text(), "serving ")
	go func() { exited <- cmd.Wait() }()
	defer func() {
		stdin.Close()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("the server: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Error("the server did not stop")
		}
	}()

	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	if code, _ := getPage(t, client, "http://"+addr+"/"); code != 200 {
		t.Fatalf("GET /: %d", code)
	}
	// Twice as many connections as it has descriptors left.
	var conns []net.Conn
	for i := 0; i < 2*emfileSpare; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	// Until the log says it ran out, and a while after.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "too many open files"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server never ran out of descriptors:\n%s", stderr.String())
		}
	}
	time.Sleep(1500 * time.Millisecond)
	select {
	case err := <-exited:
		t.Fatalf("the server exited when it ran out of descriptors: %v\n%s", err, stderr.String())
	default:
	}
	for _, c := range conns {
		c.Close()
	}
	if code, body := getPage(t, client, "http://"+addr+"/"); code != 200 || !strings.Contains(string(body), `<h2 id="col-open">`) {
		t.Fatalf("GET / after the clients left: %d\n%.300s", code, body)
	}
}

// lockedBuffer is a child's standard error, read while the child writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// emfileSpare is how many descriptors the child may open beyond those
// it has when it starts serving.
const emfileSpare = 24

// emfileChild serves a new repository with few descriptors to spare until
// its standard input closes.
func emfileChild() {
	dir := os.Getenv("TD_TEST_EMFILE_DIR")
	getenv := func(k string) string {
		return map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}[k]
	}
	fail := func(err error) {
		fmt.Println("failed:", err)
		os.Exit(1)
	}
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: repo.Options{Env: getenv}}); err != nil {
		fail(err)
	}
	ln, err := web.Listen("127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	sv := web.NewServer(func() (*repo.Store, error) { return repo.Open(dir, repo.Options{Env: getenv}) }, "test", nil, boardFilter())
	sv.Log = os.Stderr
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		fail(err)
	}
	lim := syscall.Rlimit{Cur: uint64(len(fds) + emfileSpare), Max: uint64(len(fds) + emfileSpare)}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fail(err)
	}
	stop := make(chan struct{})
	go func() {
		bufio.NewReader(os.Stdin).ReadByte()
		close(stop)
	}()
	fmt.Println("serving", ln.Addr())
	if err := sv.Serve(ln, stop); err != nil {
		fail(err)
	}
	os.Exit(0)
}
