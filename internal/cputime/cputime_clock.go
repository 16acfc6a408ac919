//go:build linux || darwin || freebsd || openbsd || dragonfly || solaris

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the CPU time the calling OS thread has used, from
// CLOCK_THREAD_CPUTIME_ID, to the nanosecond (getrusage's thread times are
// counted in scheduler ticks on some kernels), and whether the clock could
// be read. Lock the goroutine to its thread around the two readings.
func Thread() (time.Duration, bool) {
	return clock(unix.CLOCK_THREAD_CPUTIME_ID)
}

// Process returns the CPU time, user and system, of all the process's
// threads, and whether the clock could be read.
func Process() (time.Duration, bool) {
	return clock(unix.CLOCK_PROCESS_CPUTIME_ID)
}

func clock(id int32) (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(id, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
