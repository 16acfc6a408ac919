//go:build unix

package main

import (
	"syscall"
	"time"
)

// haveCPUTime says whether cpuTime measures anything.
const haveCPUTime = true

// cpuTime returns the CPU time, user and system, the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
