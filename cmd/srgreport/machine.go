package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine is what the measurements ran on.
type Machine struct {
	CPU        string `json:"cpu_model"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	// LoadStart and LoadEnd are the 1-, 5- and 15-minute load averages at
	// the start and the end of the run (nil where the OS does not say).
	LoadStart []float64 `json:"load_start"`
	LoadEnd   []float64 `json:"load_end"`
}

// readMachine describes this machine now; the caller fills LoadEnd later.
func readMachine() Machine {
	return Machine{
		CPU: cpuModel(), CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, LoadStart: loadAverage(),
	}
}

// cpuModel reads the CPU's name from /proc/cpuinfo (Linux); "unknown"
// elsewhere.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// loadAverage reads the 1-, 5- and 15-minute load averages from
// /proc/loadavg (Linux); nil elsewhere.
func loadAverage() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return nil
	}
	var out []float64
	for _, s := range f[:3] {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		out = append(out, x)
	}
	return out
}

// busyNotes says, in sentences, why the machine counts as busy: others'
// work at the start (a 1-minute load of half the cores or more before this
// run did anything), more than this run's own work at the end, or timed
// runs that got less than 90% of a core. Empty when it was not busy.
func busyNotes(m Machine, datasets []Dataset) []string {
	var notes []string
	if len(m.LoadStart) > 0 && m.LoadStart[0] >= float64(m.CPUs)/2 {
		notes = append(notes, "the 1-minute load average was "+strconv.FormatFloat(m.LoadStart[0], 'f', 2, 64)+
			" at the start, before this run did anything, on "+strconv.Itoa(m.CPUs)+" CPUs: other jobs were running")
	}
	if len(m.LoadEnd) > 0 && m.LoadEnd[0] > float64(m.GOMAXPROCS)+float64(m.CPUs)/2 {
		notes = append(notes, "the 1-minute load average was "+strconv.FormatFloat(m.LoadEnd[0], 'f', 2, 64)+
			" at the end, more than this run's own "+strconv.Itoa(m.GOMAXPROCS)+" threads")
	}
	for _, d := range datasets {
		if t := d.Timing; t != nil && t.CPUShare < 0.9 {
			notes = append(notes, "the timed runs of "+d.Name+" got "+strconv.Itoa(int(100*t.CPUShare+0.5))+
				"% of a core (they run on one)")
		}
	}
	return notes
}
