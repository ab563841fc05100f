package testscripts

import (
	"flag"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// runScenarios runs each file as a subtest of t named after it, as
// testscript.Run does, but starts them in the order given, -test.parallel
// at a time: testing starts parallel subtests in no set order, and a long
// scenario started last keeps everything waiting for it alone.
func runScenarios(t *testing.T, files []string, p testscript.Params) {
	if deadline, ok := t.Deadline(); ok && p.Deadline.IsZero() {
		p.Deadline = deadline
	}
	next := make(chan string)
	var wg sync.WaitGroup
	for range parallelism() {
		wg.Go(func() {
			for f := range next {
				one := p
				one.Files = []string{f}
				testscript.RunT(inOrderT{t}, one)
			}
		})
	}
	for _, f := range files {
		next <- f
	}
	close(next)
	wg.Wait()
}

// parallelism is how many scenarios run at once: -test.parallel when it is
// given, else twice GOMAXPROCS, since a scenario spends much of its time
// waiting for the git and td processes it starts and for the disk.
func parallelism() int {
	n := 2 * runtime.GOMAXPROCS(0)
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			if v, err := strconv.Atoi(f.Value.String()); err == nil && v > 0 {
				n = v
			}
		}
	})
	return n
}

// inOrderT is a testing.T for testscript whose subtests runScenarios runs
// in parallel itself: Parallel does nothing.
type inOrderT struct{ *testing.T }

func (inOrderT) Parallel() {}

func (t inOrderT) Run(name string, f func(testscript.T)) {
	t.T.Run(name, func(t *testing.T) { f(inOrderT{t}) })
}

func (inOrderT) Verbose() bool { return testing.Verbose() }

// stressFirst orders the scenarios so that the stress tests, which skip
// themselves under -short and each take longer than many others together,
// start first and overlap the rest rather than run on after it.
func stressFirst(t *testing.T, files []string) []string {
	stressTest := regexp.MustCompile(`(?m)^\[short\] skip\b`)
	var stress, rest []string
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if stressTest.Match(a.Comment) {
			stress = append(stress, f)
		} else {
			rest = append(rest, f)
		}
	}
	return append(stress, rest...)
}
