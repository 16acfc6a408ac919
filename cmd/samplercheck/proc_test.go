package main

import (
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Property: stopping a program closes its input and lets it exit on its
// own, as the protocol asks it to (exit status 0, not killed).
func TestStopLetsProgramExit(t *testing.T) {
	p, err := start([]string{ref})
	require.NoError(t, err)
	_, perr := p.exchange([]byte(`{"op":"kind","version":1}`), 10*time.Second)
	require.Nil(t, perr)
	p.stop()
	require.NoError(t, p.err, "the program's exit")
}

// Property: a program that closes its output and then exits (within 3 s)
// is reported with its exit status, not as still running.
func TestExitAfterClosingOutput(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	p, err := start([]string{sh, "-c", "exec >&-; sleep 0.3; exit 4"})
	require.NoError(t, err)
	defer p.stop()
	_, perr := p.exchange([]byte(`{"op":"kind","version":1}`), 10*time.Second)
	require.NotNil(t, perr)
	require.False(t, perr.Timeout)
	require.Equal(t, "got no answer: the program exited (exit status 4)", perr.Problem)
}
