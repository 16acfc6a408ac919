//go:build !race

package srg

const raceEnabled = false
