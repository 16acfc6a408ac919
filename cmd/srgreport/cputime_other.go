//go:build !unix

package main

import "time"

// haveCPUTime says whether cpuTime measures anything.
const haveCPUTime = false

// cpuTime is unknown here.
func cpuTime() time.Duration { return 0 }
