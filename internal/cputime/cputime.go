// Package cputime reads the CPU time of the calling thread and of the
// process, which, unlike wall time, does not grow while other processes
// hold the core: what the benchmarks and the report time on a shared
// machine.
package cputime
