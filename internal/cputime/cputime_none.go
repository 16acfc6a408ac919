//go:build !(linux || darwin || freebsd || openbsd || dragonfly || solaris)

package cputime

import "time"

// Thread reports no clock on this system.
func Thread() (time.Duration, bool) { return 0, false }

// Process reports no clock on this system.
func Process() (time.Duration, bool) { return 0, false }
