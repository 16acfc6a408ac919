package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/reweighted/reweighted/internal/paperdata"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// A 300-row set with one feature index 2³¹ − 1 reads fine (the index fits
// an int32) but its x* and runs would need vectors of 17 GB each: the
// command refuses it before anything runs, with an input error (exit status
// 2) on one line that names the set, its file and the reason.
func TestHugeDimensionRefusedUpFront(t *testing.T) {
	need := srg.DatasetMemory(300, math.MaxInt32, tiny.dataRuns, runtime.GOMAXPROCS(0))
	if avail := availableMemory(); avail == 0 || avail >= need {
		t.Skipf("this machine may hold %d bytes", need)
	}
	var b strings.Builder
	for i := range 300 {
		if i%2 == 0 {
			b.WriteString("+1 1:0.5 7:1")
		} else {
			b.WriteString("-1 2:1")
		}
		if i == 150 {
			b.WriteString(" 2147483647:1")
		}
		b.WriteString("\n")
	}
	path := writeLibsvm(t, b.String())
	out := t.TempDir()
	cfg := config{out: out, seed: 3, sampler: "btree", claims: true, conformance: true, scaling: true,
		experiments: true, override: &tiny, data: dataFlags{{"huge", path}}}
	var stderr bytes.Buffer
	err := run(cfg, frozen(&stderr, false))
	require.ErrorAs(t, err, new(inputError))
	msg := err.Error()
	require.NotContains(t, msg, "\n")
	require.Contains(t, msg, `data set "huge" (`+path+`)`)
	require.Contains(t, msg, "2147483647 features need about")
	require.Contains(t, msg, "available")
	require.Empty(t, stderr.String(), "no stage started")
	_, serr := os.Stat(filepath.Join(out, "index.md"))
	require.ErrorIs(t, serr, os.ErrNotExist)
}

// The memory check compares srg.DatasetMemory with the limit: a set that
// needs more is refused, and without a limit it runs.
func TestMemoryLimit(t *testing.T) {
	cfg := config{out: t.TempDir(), seed: 3, sampler: "btree", experiments: true, override: &tiny, memLimit: 1000}
	_, err := loadDatasets(cfg, tiny)
	require.ErrorContains(t, err, `data set "generated" (generated): 20 features need about`)
	require.ErrorContains(t, err, "more than the 0 MB available")
	cfg.memLimit = -1
	sets, err := loadDatasets(cfg, tiny)
	require.NoError(t, err)
	require.Len(t, sets, 1)
	require.Positive(t, availableMemory(), "known on Linux and wherever GOMEMLIMIT is set")
}

// -like takes the shapes it knows, once each.
func TestLikeFlag(t *testing.T) {
	cfg, err := parseFlags([]string{"-like", "rcv1", "-like", "news20"}, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "rcv1,news20", cfg.like.String())
	_, err = parseFlags([]string{"-like", "url"}, io.Discard)
	require.ErrorContains(t, err, `unknown shape "url": want rcv1, news20`)
	_, err = parseFlags([]string{"-like", "rcv1", "-like", "rcv1"}, io.Discard)
	require.ErrorContains(t, err, "given twice")
}

// -like rcv1 runs the wide case end to end: a generated set of rcv1's size
// (47,236 features, x* by Newton-CG, L by Lanczos) gets its curves, its
// time-to-accuracy rows and its place in Figure 1.
func TestLikeRCV1Runs(t *testing.T) {
	out := t.TempDir()
	cfg := config{out: out, seed: 3, sampler: "btree", experiments: true, override: &tiny}
	require.NoError(t, cfg.like.Set("rcv1"))
	require.NoError(t, run(cfg, frozen(io.Discard, false)))
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	var s struct {
		Datasets []struct {
			Name   string `json:"name"`
			Result struct {
				N        int     `json:"n"`
				D        int     `json:"d"`
				GradNorm float64 `json:"grad_norm_at_xstar"`
				Floor    float64 `json:"xstar_rel_err_floor"`
				Solver   string  `json:"solver"`
				Constant []struct {
					Method string `json:"method"`
				} `json:"constant"`
			} `json:"result"`
			TimeTo []json.RawMessage `json:"time_to_accuracy"`
			Err    string            `json:"error"`
		} `json:"datasets"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	require.Len(t, s.Datasets, 2)
	d := s.Datasets[1]
	require.Equal(t, "rcv1-like", d.Name)
	require.Empty(t, d.Err)
	require.Equal(t, 20242, d.Result.N)
	require.Equal(t, 47236, d.Result.D)
	require.LessOrEqual(t, d.Result.GradNorm, 1e-12)
	require.Equal(t, "Newton-CG", d.Result.Solver)
	// The curves are exact far below the 1e-15 that SVRG reaches.
	require.Less(t, d.Result.Floor, 1e-20)
	require.Positive(t, d.Result.Floor)
	require.Len(t, d.Result.Constant, 4)
	require.Len(t, d.TimeTo, 8*len(measures)*len(accuracyLevels))
	md, err := os.ReadFile(filepath.Join(out, "index.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "By the mean length of the rows")
	require.Contains(t, string(md), "- rcv1-like: generated from the seed in the shape of rcv1 (libsvm.TextLike: 20242 × 47236, 74 non-zeros a row on average); took")
}

// On the paper's sets that the command embeds, both solvers find the same
// x*: within the sum of their certified distances to the exact one, and
// each certified to 1e-12.
func TestSolversAgreeOnPaperSets(t *testing.T) {
	for _, s := range paperdata.Sets {
		ds, err := s.Read()
		require.NoError(t, err)
		ds.NormalizeRows()
		p, err := srg.NewProblem(ds, ds.Labels, srg.Logistic, 1/float64(ds.Len()))
		require.NoError(t, err)
		dense, err := p.SolveWith(1e-12, srg.DenseNewton)
		require.NoError(t, err, s.Name)
		cg, err := p.SolveWith(1e-12, srg.NewtonCG)
		require.NoError(t, err, s.Name)
		require.LessOrEqual(t, cg.GradNorm, 1e-12, s.Name)
		require.LessOrEqual(t, dense.GradNorm, 1e-12, s.Name)
		require.LessOrEqual(t, floats.Distance(dense.X, cg.X, 2), dense.DistBound+cg.DistBound, s.Name)
		require.Equal(t, srg.DenseNewton, func() srg.Solver { a, _ := p.Solve(1e-12); return a.Solver }(), "d ≤ DenseMaxDim")
	}
}

// The note on row length orders the sets by their mean row and says
// whether the longest rows bring SRG's epoch cost closer to SGD's, or,
// when the two costs show as the same digits, that the rows make no
// difference that shows.
func TestRowCostNote(t *testing.T) {
	row := func(nnz int) *libsvm.Dataset {
		ds := &libsvm.Dataset{Ptr: []int{0}, Labels: []float64{1, -1}}
		for range 2 {
			for j := range nnz {
				ds.Idx, ds.Val = append(ds.Idx, int32(j)), append(ds.Val, 1)
			}
			ds.Ptr = append(ds.Ptr, len(ds.Idx))
		}
		return ds
	}
	r := &Report{Datasets: []Dataset{
		{Name: "wide", data: row(450), EpochCost: &EpochCost{Ratio: 0.9}, Result: &srg.DatasetResult{}},
		{Name: "narrow", data: row(20), EpochCost: &EpochCost{Ratio: 5}, Result: &srg.DatasetResult{}},
	}}
	note := rowCostNote(r)
	require.Contains(t, note, "narrow 5.0× on rows of 20 non-zeros, wide 0.9× on rows of 450 non-zeros")
	require.Contains(t, note, "bring SRG's epoch from 5.0 to 0.9 times SGD's")
	r.Datasets[0].EpochCost.Ratio = 6
	require.Contains(t, rowCostNote(r), "did not bring")
	// 2.14 and 2.07 both show as 2.1: no "from 2.1 to 2.1".
	r.Datasets[0].EpochCost.Ratio, r.Datasets[1].EpochCost.Ratio = 2.07, 2.14
	note = rowCostNote(r)
	require.Contains(t, note, "make no difference that shows: about 2.1 times SGD's")
	require.NotContains(t, note, "from 2.1 to 2.1")
	r.Datasets = r.Datasets[:1]
	require.Empty(t, rowCostNote(r))
}

// A set of more than bigNNZ values runs a quarter of the default epochs,
// as one of more than bigSet examples does (main_test checks the epochs
// that follow); the shapes -like makes fall on either side.
func TestBigEpochs(t *testing.T) {
	set := func(n, nnz int) *libsvm.Dataset {
		return &libsvm.Dataset{Labels: make([]float64, n), Ptr: make([]int, n+1), Idx: make([]int32, nnz), Val: make([]float64, nnz)}
	}
	require.False(t, bigEpochs(set(bigSet, bigNNZ)))
	require.True(t, bigEpochs(set(bigSet+1, 10)))
	require.True(t, bigEpochs(set(10, bigNNZ+1)))
	require.True(t, libsvm.News20.N*libsvm.News20.RowNNZ > bigNNZ, "news20's 9·10⁶ values")
	require.True(t, libsvm.RCV1.N > bigSet)
}

// A wide set (more features than examples) of at most bigNNZ values runs
// half the default epochs, even with more than bigSet examples; a wide set
// of more values, a quarter; a narrow one of more examples, a quarter; a
// small narrow one, all.
func TestModeEpochs(t *testing.T) {
	set := func(n, d, nnz int) *libsvm.Dataset {
		return &libsvm.Dataset{Labels: make([]float64, n), D: d, Ptr: make([]int, n+1), Idx: make([]int32, nnz), Val: make([]float64, nnz)}
	}
	for _, c := range []struct {
		n, d, nnz, want int
	}{
		{libsvm.RCV1.N, libsvm.RCV1.D, libsvm.RCV1.N * libsvm.RCV1.RowNNZ, 100},
		{libsvm.News20.N, libsvm.News20.D, libsvm.News20.N * libsvm.News20.RowNNZ, 50},
		{bigSet + 1, 10, 100, 50},
		{1000, 10, 100, 200},
		{1000, 1001, 100, 100},
	} {
		require.Equal(t, c.want, modeEpochs(set(c.n, c.d, c.nnz), 200), "%+v", c)
	}
	require.Equal(t, 1, modeEpochs(set(10, 100, 10), 1), "at least one epoch")
}
