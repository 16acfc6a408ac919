//go:build !race

package levels

const raceEnabled = false
