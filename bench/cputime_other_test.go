//go:build !linux

package bench_test

import "time"

// threadCPU is unavailable off Linux.
func threadCPU() (time.Duration, bool) { return 0, false }
