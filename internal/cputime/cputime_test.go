package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/reweighted/reweighted/internal/cputime"
)

// TestThreadCountsWork checks the thread clock against the wall clock over
// 20 ms of work on a locked thread: it advances, by at most the wall time
// (the thread cannot run longer than the time that passed), and the process
// clock by at least as much as the thread's.
func TestThreadCountsWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := cputime.Thread()
	p0, okp := cputime.Process()
	if !ok || !okp {
		if runtime.GOOS == "linux" {
			t.Fatal("no CPU clock on Linux")
		}
		t.Skip("no CPU clock on this system")
	}
	w0 := time.Now()
	x := uint64(1)
	for time.Since(w0) < 20*time.Millisecond {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	t1, _ := cputime.Thread()
	p1, _ := cputime.Process()
	wall := time.Since(w0)
	if x == 0 {
		t.Log(x) // keeps the loop
	}
	if d := t1 - t0; d <= 0 || d > wall+time.Millisecond {
		t.Errorf("thread CPU time advanced %v over %v of wall time", d, wall)
	}
	if p1-p0 < t1-t0 {
		t.Errorf("process CPU time advanced %v, less than the thread's %v", p1-p0, t1-t0)
	}
}
