//go:build !race

package samplertest

const raceEnabled = false
