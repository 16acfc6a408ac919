package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
)

// Property: a check that skips, with nothing reported before, is SKIP with
// its reason; one that reports an error and then skips is FAIL; one that
// returns is PASS.
func TestRunPropertySkip(t *testing.T) {
	g := NewProgram(nil, time.Second)
	res := runProperty(g, property{name: "A", run: func(t samplertest.TB) { t.Skipf("no %s", "cutoff") }})
	require.Equal(t, "SKIP", res.status)
	require.Equal(t, []string{"no cutoff"}, res.detail)
	res = runProperty(g, property{name: "B", run: func(t samplertest.TB) { t.Errorf("wrong ρ"); t.Skip("late") }})
	require.Equal(t, "FAIL", res.status)
	require.Contains(t, res.detail, "wrong ρ")
	res = runProperty(g, property{name: "C", run: func(t samplertest.TB) { t.Logf("fine") }})
	require.Equal(t, "PASS", res.status)
}

// Property: -n bounds the state machines of both kinds: with -n 1 every
// sampler the StateMachine property makes has at most one item (the kit's
// own StateMachine goes to 48 items, its law one to 24). A shell copies
// the requests to a file on their way to the reference program.
func TestStateMachineSizeFlag(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	for _, kind := range []string{"map", "law"} {
		log := filepath.Join(t.TempDir(), "requests")
		code, out := check(t, "-n", "1", "-run", "^StateMachine$", "--", sh, "-c", `tee -a "$0" | exec "$@"`, log, ref, "-kind", kind)
		require.Equal(t, 0, code, "exit code")
		require.Equal(t, "PASS", statuses(out)["StateMachine"])
		f, err := os.Open(log)
		require.NoError(t, err)
		news := 0
		for sc := bufio.NewScanner(f); sc.Scan(); {
			var req struct {
				Op string
				N  int
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &req))
			if req.Op == "new" {
				news++
				require.LessOrEqual(t, req.N, 1, "%s kind: %s", kind, sc.Text())
			}
		}
		f.Close()
		require.Positive(t, news, "%s kind: new requests", kind)
	}
}
