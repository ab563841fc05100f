package repo

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEach calls fn(0) … fn(n-1) on up to workers goroutines, or in this
// goroutine when n is below serialBelow (starting goroutines would cost
// more than they save). Each call must touch only its own index's data.
// td's reads of thousands of small files are bound by system calls, so a
// few goroutines per core overlap them well.
func ForEach(n, workers, serialBelow int, fn func(i int)) {
	if n < serialBelow || workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// ioWorkers is how many goroutines a batch of file reads uses.
func IOWorkers() int { return runtime.GOMAXPROCS(0) * 2 }
