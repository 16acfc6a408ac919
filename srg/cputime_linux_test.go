package srg

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time consumed by the calling OS thread (Linux
// RUSAGE_THREAD), which, unlike wall time, does not grow when other
// processes compete for the cores.
func threadCPU() (time.Duration, bool) {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
