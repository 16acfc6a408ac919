//go:build race

package srg

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// that levels' pooled scratch memory allocates.
const raceEnabled = true
