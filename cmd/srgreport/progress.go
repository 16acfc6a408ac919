package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress shows how far a long stage has come. On a terminal it redraws
// one carriage-return line (stage, bar, count, elapsed, ETA) four times a
// second; elsewhere (a log file, CI) it prints the same line as plain text
// at most once every plainEvery, so logs stay readable, and one line per
// finished stage.
type progress struct {
	w   io.Writer
	tty bool
	// results receives what the run produced, one line each (the files it
	// wrote): stdout, while the progress goes to stderr.
	results io.Writer
	// plainEvery is the least time between two plain progress lines.
	plainEvery time.Duration

	mu          sync.Mutex
	stage       string
	done, total int
	expect      time.Duration // the stage's rough length, for an ETA before any unit is done
	// expects holds each stage's rough length (see plan).
	expects     map[string]time.Duration
	start, last time.Time // the stage's start, the last plain line
	stop        chan struct{}
	stopped     chan struct{}
	now         func() time.Time
	// observe, if set, sees every change of the units done (tests).
	observe func(stage string, done, total int)
}

// newProgress writes to w; tty selects the redrawn line. Results are
// discarded until results is set.
func newProgress(w io.Writer, tty bool) *progress {
	return &progress{w: w, tty: tty, results: io.Discard, now: time.Now, plainEvery: 15 * time.Second}
}

// isTerminal reports whether f is a character device, which is what a
// terminal looks like without a dependency on x/term.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Start begins a stage of total units.
func (p *progress) Start(stage string, total int) {
	p.mu.Lock()
	p.stage, p.done, p.total, p.expect = stage, 0, max(total, 1), p.expects[stage]
	p.start = p.now()
	p.last = p.start
	p.mu.Unlock()
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	every := time.Second
	if p.tty {
		every = 250 * time.Millisecond
	}
	go func(stop, stopped chan struct{}) {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			p.tick()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}(p.stop, p.stopped)
}

// tick redraws the terminal line, or prints a plain line if plainEvery has
// passed since the last.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", p.line())
		return
	}
	if now := p.now(); now.Sub(p.last) >= p.plainEvery {
		p.last = now
		fmt.Fprintf(p.w, "srgreport: %s\n", p.line())
	}
}

// Step records one more unit done.
func (p *progress) Step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setDone(p.done + 1)
}

// SetDone records that done units are done (at most the total; never
// fewer than before).
func (p *progress) SetDone(done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setDone(done)
}

// setDone is SetDone with p.mu held.
func (p *progress) setDone(done int) {
	if done = min(done, p.total); done > p.done {
		p.done = done
		if p.observe != nil {
			p.observe(p.stage, p.done, p.total)
		}
	}
}

// Done ends the stage, with a note (may be empty) on its outcome.
func (p *progress) Done(note string) {
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf("srgreport: %s done in %s", p.stage, fmtDuration(p.now().Sub(p.start)))
	if note != "" {
		line += " (" + note + ")"
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s\n", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

// Printf writes a line of its own, between stages.
func (p *progress) Printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "srgreport: "+format+"\n", args...)
}

// line formats the current state: stage, bar, count, elapsed and ETA. The
// ETA comes from the units done, or, before a tenth of them are done, from
// the stage's expected length while it lasts.
func (p *progress) line() string {
	const width = 24
	elapsed := p.now().Sub(p.start)
	filled := width * p.done / p.total
	bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
	eta := "ETA ?"
	switch {
	case p.expect > elapsed && p.done*10 < p.total:
		// Too few units yet for a rate (the first are often the slowest):
		// the plan's length is the better guess.
		eta = "ETA about " + (p.expect - elapsed).Round(time.Second).String()
	case p.done > 0:
		left := time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))
		eta = "ETA " + left.Round(time.Second).String()
	case p.expect > elapsed:
		eta = "ETA about " + (p.expect - elapsed).Round(time.Second).String()
	case p.expect > 0:
		eta = "ETA ? (longer than the expected " + fmtDuration(p.expect) + ")"
	}
	return fmt.Sprintf("%-14s [%s] %d/%d %s %s", p.stage, bar, p.done, p.total, elapsed.Round(time.Second), eta)
}

// fmtDuration formats a stage's length for people: to 0.1 s under a minute
// ("0.2s", "12.5s"), to the second above ("1m30s"), and never as "0s" unless
// it is zero, so a short stage does not read as one that did not run.
func fmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < 50*time.Millisecond:
		return "< 0.1s"
	case d < time.Minute-50*time.Millisecond:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
