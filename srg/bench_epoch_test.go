package srg

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/cputime"
	"github.com/reweighted/reweighted/internal/paperdata"
	"github.com/reweighted/reweighted/libsvm"
)

// epochFile, when given, is the one LIBSVM file the epoch benchmarks run on,
// named by its base name up to the first dot, in place of the paper's sets.
var epochFile = flag.String("epochfile", "", "a LIBSVM file that BenchmarkEpoch and BenchmarkEpochRatio run on alone, in place of the paper's four sets under -data")

// epochSets are the data sets the epoch benchmarks run on: the paper's four
// (mushrooms and phishing embedded, w8a and ijcnn1 read from the folder of
// the -data flag, defined by the experiment tests, and skipped without it),
// or the -epochfile alone.
func epochSets() []string {
	if *epochFile != "" {
		return []string{strings.SplitN(filepath.Base(*epochFile), ".", 2)[0]}
	}
	return []string{"mushrooms", "phishing", "w8a", "ijcnn1"}
}

// epochProblem reads a data set and builds the problem of Dataset: logistic
// regression on unit rows with μ = 1/n, and its constant schedule for
// mini-batches of 128.
func epochProblem(b *testing.B, name string) (*Problem, Schedule) {
	b.Helper()
	if *epochFile == "" {
		return epochProblemOf(b, readEpochSet(b, name))
	}
	ds, err := libsvm.ReadFile(*epochFile)
	if err != nil {
		b.Fatal(err)
	}
	return epochProblemOf(b, ds)
}

// readEpochSet returns the data set name: embedded for mushrooms and
// phishing, else read from the folder of the -data flag (defined by the
// experiment tests). Without -data it skips, naming the flag: w8a and
// ijcnn1 are not redistributed with the module.
func readEpochSet(tb testing.TB, name string) *libsvm.Dataset {
	tb.Helper()
	if set, ok := paperdata.Lookup(name); ok {
		ds, err := set.Read()
		if err != nil {
			tb.Fatal(err)
		}
		return ds
	}
	dir := flag.Lookup("data")
	if dir == nil || dir.Value.String() == "" {
		tb.Skipf("%s is not embedded: give -data DIR, a folder holding %s.gz", name, name)
	}
	ds, err := libsvm.ReadFile(filepath.Join(dir.Value.String(), name+".gz"))
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

// epochProblemOf builds the problem of Dataset on ds, whose rows it
// normalises, and its schedule, as epochProblem.
func epochProblemOf(tb testing.TB, ds *libsvm.Dataset) (*Problem, Schedule) {
	tb.Helper()
	ds.NormalizeRows()
	n := ds.Len()
	p, err := NewProblem(ds, ds.Labels, Logistic, 1/float64(n))
	if err != nil {
		tb.Fatal(err)
	}
	return p, ExperimentalConstant(n, MiniBatchSmoothness(n, epochBatch, p.Lmax(), p.L()))
}

const epochBatch = 128

// uniformStandIn is a Distribution that ignores its keys: it stores none,
// and draws uniformly without replacement, as SGD does, each item reported
// with p = 1/n. It has the method set of a LawSampler but not its law (p*
// of the keys), and serves only to time what an SRG iteration does besides
// sampling: Des Raj's weights, the gradients, the keys, and the calls that
// hand the batch to the sampler and back.
type uniformStandIn struct {
	perm []int
	src  rand.Source // the source of the last DrawBatch, and rng on it
	rng  *rand.Rand
}

func newUniformStandIn(n int) reweighted.Distribution {
	s := &uniformStandIn{perm: make([]int, n)}
	for i := range s.perm {
		s.perm[i] = i
	}
	return s
}

func (s *uniformStandIn) Len() int                            { return len(s.perm) }
func (s *uniformStandIn) Key(int) float64                     { return 0 }
func (s *uniformStandIn) Set(int, float64) error              { return nil }
func (s *uniformStandIn) SetBatch([]int, []float64) error     { return nil }
func (s *uniformStandIn) Solve(float64) (int, float64, error) { return len(s.perm), 0, nil }
func (s *uniformStandIn) Prob(int, float64) (float64, error)  { return 1 / float64(len(s.perm)), nil }
func (s *uniformStandIn) Draw(_ float64, src rand.Source) (int, float64, error) {
	return int(src.Uint64() % uint64(len(s.perm))), 1 / float64(len(s.perm)), nil
}
func (s *uniformStandIn) DrawBatch(_ float64, src rand.Source, _ bool, items []int, probs []float64) error {
	if s.src != src {
		s.src, s.rng = src, rand.New(src)
	}
	uniformBatch(s.perm, items, s.rng.IntN)
	for k := range probs {
		probs[k] = 1 / float64(len(s.perm))
	}
	return nil
}

// epochImpls are the optimisers an epoch is timed for: SGD, SRG on levels,
// and SRG on uniformStandIn (SRG less its sampler).
var epochImpls = []struct {
	name string
	o    Options
}{
	{"sgd", Options{Method: SGD}},
	{"srg-levels", Options{Method: SRG}},
	{"srg-standin", Options{Method: SRG, NewSampler: newUniformStandIn}},
}

// newEpochOptimizer builds impl's optimiser on p, run for one epoch first
// so that SRG's keys hold gradient norms, as in the experiments.
func newEpochOptimizer(b testing.TB, p *Problem, s Schedule, o Options) (*optimizer, int) {
	o.Schedule, o.Batch, o.Protocol, o.Seed = s, epochBatch, WithoutReplacement, 1
	opt, err := newOptimizer(p, o)
	if err != nil {
		b.Fatal(err)
	}
	iters := (p.Len() + epochBatch - 1) / epochBatch
	runEpoch(b, opt, iters)
	return opt, iters
}

func runEpoch(b testing.TB, opt *optimizer, iters int) {
	for range iters {
		if err := opt.step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEpoch times one epoch (⌈n/128⌉ iterations on mini-batches of 128
// drawn without replacement, the constant step of the paper's experiments)
// of SGD, of SRG on levels and of SRG on a stand-in sampler that draws
// uniformly and ignores its keys, on each of the paper's data sets found
// under -data. It reports the thread's CPU time per example. srg-standin
// less sgd is what SRG adds besides its sampler.
func BenchmarkEpoch(b *testing.B) {
	for _, set := range epochSets() {
		for _, impl := range epochImpls {
			b.Run(fmt.Sprintf("impl=%s/set=%s", impl.name, set), func(b *testing.B) {
				p, s := epochProblem(b, set)
				opt, iters := newEpochOptimizer(b, p, s, impl.o)
				b.ReportAllocs()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0, ok := cputime.Thread()
				for b.Loop() {
					runEpoch(b, opt, iters)
				}
				units := float64(b.N * iters * epochBatch)
				b.ReportMetric(float64(iters*epochBatch), "examples/epoch")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/units, "ns/example")
				if c1, ok1 := cputime.Thread(); ok && ok1 {
					b.ReportMetric(float64(c1-c0)/units, "cpu-ns/example")
				}
			})
		}
	}
}

// BenchmarkEpochRatio reports, on each of the paper's data sets found under
// -data, the median over rounds of the thread CPU time of an SRG epoch over
// that of an SGD epoch run in the same round (one round per b.Loop
// iteration, of enough epochs for about 10^5 examples, so that the
// thread clock's resolution does not matter; use -benchtime=Nx with N ≥ 6): srg/sgd with levels, and
// standin/sgd with the stand-in sampler of BenchmarkEpoch, SRG's cost
// besides its sampler. Interleaving the rounds makes the ratio robust to
// the load of a shared machine; reading the problem's rows and labels,
// untimed, before each run makes them start alike (warm), where the
// sampler of the run before would have evicted them for the next one only,
// and the order of the runs turns from round to round.
func BenchmarkEpochRatio(b *testing.B) {
	for _, set := range epochSets() {
		b.Run("set="+set, func(b *testing.B) {
			p, s := epochProblem(b, set)
			opts := make([]*optimizer, len(epochImpls))
			var iters int
			for k, impl := range epochImpls {
				opts[k], iters = newEpochOptimizer(b, p, s, impl.o)
			}
			epochsPerRound := (100_000 + p.Len() - 1) / p.Len()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ratios := make([][]float64, len(opts))
			for r := 0; b.Loop(); r++ {
				var t [3]time.Duration
				for kk := range opts {
					// The order turns from round to round: two runs of
					// the same sampler, in a fixed order and without
					// warm, gave the second 1 to 3% more time.
					k := (kk + r) % len(opts)
					opt := opts[k]
					warm(p)
					c0, _ := cputime.Thread()
					runEpoch(b, opt, iters*epochsPerRound)
					c1, _ := cputime.Thread()
					t[k] = c1 - c0
				}
				for k := 1; k < len(opts); k++ {
					ratios[k] = append(ratios[k], float64(t[k])/float64(t[0]))
				}
			}
			for k := 1; k < len(opts); k++ {
				slices.Sort(ratios[k])
				b.ReportMetric(ratios[k][len(ratios[k])/2], epochImpls[k].name+"/sgd")
			}
		})
	}
}

// warmSink keeps warm's reads from being optimised away.
var warmSink float64

// warm reads every row and label of p.
func warm(p *Problem) {
	t := 0.0
	for i := range p.Len() {
		idx, val := p.Rows.Row(i)
		for k := range idx {
			t += val[k] + float64(idx[k])
		}
		t += p.Y[i]
	}
	warmSink += t
}
