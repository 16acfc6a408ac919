package srg

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time consumed by the calling OS thread, from
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), to the nanosecond: unlike wall
// time, it does not grow when other processes hold the core, and unlike
// getrusage's thread times, which some kernels count in scheduler ticks,
// it resolves a round of a few milliseconds.
func threadCPU() (time.Duration, bool) {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
