package main

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// likeShapes are the shapes -like generates: text sets too large to embed
// and that papers on variance reduction report.
var likeShapes = []libsvm.Shape{libsvm.RCV1, libsvm.News20}

// bigNNZ is the number of stored values above which a data set, like one
// of more than bigSet examples, runs a quarter of the default epochs: an
// epoch of news20's 9·10⁶ values, spread over 1.35·10⁶ features, costs 20
// to 40 times one of mushrooms.
const bigNNZ = 2_000_000

// bigEpochs tells whether ds is big enough to run fewer than the default
// epochs: more than bigSet examples or bigNNZ values.
func bigEpochs(ds *libsvm.Dataset) bool { return ds.Len() > bigSet || ds.NNZ() > bigNNZ }

// wideEpochs tells whether ds is wide (more features than examples) and
// yet of at most bigNNZ values: such a set runs half the default epochs,
// not a quarter however many examples it has. Its decreasing steps gain
// about a decade per tenfold epochs, so that a quarter (50 of a full run)
// leaves SGD and SRG short of 1e-2 (rcv1's shape: about 10^-1.8 at 50
// epochs, 1e-2 near 75 in the relative suboptimality, near 90 in the
// distance).
func wideEpochs(ds *libsvm.Dataset) bool { return ds.Dim() > ds.Len() && ds.NNZ() <= bigNNZ }

// modeEpochs returns the epochs a data set runs when -epochs is not given:
// the mode's default, halved on a wide set (wideEpochs), quartered on any
// other big one (bigEpochs), at least 1.
func modeEpochs(ds *libsvm.Dataset, epochs int) int {
	switch {
	case wideEpochs(ds):
		return max(epochs/2, 1)
	case bigEpochs(ds):
		return max(epochs/4, 1)
	}
	return epochs
}

// likeFlags collects repeated -like flags: sets generated from the seed in
// the shape of a named LIBSVM set.
type likeFlags []libsvm.Shape

// String implements flag.Value.
func (l *likeFlags) String() string {
	var names []string
	for _, s := range *l {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// Set implements flag.Value: it takes the name of a shape.
func (l *likeFlags) Set(name string) error {
	i := slices.IndexFunc(likeShapes, func(s libsvm.Shape) bool { return s.Name == name })
	switch {
	case i < 0:
		return fmt.Errorf("unknown shape %q: want %s", name, likeNames())
	case slices.ContainsFunc(*l, func(s libsvm.Shape) bool { return s.Name == name }):
		return fmt.Errorf("shape %q given twice", name)
	}
	*l = append(*l, likeShapes[i])
	return nil
}

func likeNames() string {
	var names []string
	for _, s := range likeShapes {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// likeName names the set generated in shape s.
func likeName(s libsvm.Shape) string { return s.Name + "-like" }

// likeSource describes where the set generated in shape s comes from, for
// the report; it starts with generatedName.
func likeSource(s libsvm.Shape) string {
	return fmt.Sprintf("%s from the seed in the shape of %s (libsvm.TextLike: %d × %d, %d non-zeros a row on average)",
		generatedName, s.Name, s.N, s.D, s.RowNNZ)
}

// likeSets generates the -like sets from the seed.
func likeSets(cfg config) []*libsvm.Dataset {
	var out []*libsvm.Dataset
	for _, s := range cfg.like {
		out = append(out, libsvm.TextLike(cfg.seed, s))
	}
	return out
}

// checkMemory refuses a data set whose experiments would need more memory
// than the machine has (srg.DatasetMemory, estimated before anything is
// allocated): limit is the memory available, 0 if unknown (no check).
func checkMemory(ds *libsvm.Dataset, runs int, limit int64) error {
	need := srg.DatasetMemory(ds.Len(), ds.Dim(), runs, runtime.GOMAXPROCS(0))
	if limit > 0 && need > limit {
		return fmt.Errorf("%d features need about %s for x* and the runs, more than the %s available",
			ds.Dim(), fmtBytes(need), fmtBytes(limit))
	}
	return nil
}

// availableMemory returns the memory the run may use: the kernel's
// MemAvailable (Linux), lowered to the Go memory limit (GOMEMLIMIT) if one
// is set; 0 if neither is known.
func availableMemory() int64 {
	limit := debug.SetMemoryLimit(-1)
	if limit == 1<<63-1 {
		limit = 0
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return limit
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "MemAvailable:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				break
			}
			if avail := kb << 10; limit == 0 || avail < limit {
				limit = avail
			}
		}
	}
	return limit
}

// fmtBytes formats a byte count in GB or MB.
func fmtBytes(b int64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.1f GB", float64(b)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}

// rowCostNote says how SRG's epoch cost over SGD's moves with the length
// of the rows: the sampler's work per example is the same whatever the
// row, SGD's grows with it, so on long rows (news20's 455 non-zeros) SRG's
// seconds come close to its epochs. Empty with fewer than two sets measured.
func rowCostNote(r *Report) string {
	type set struct {
		name       string
		row, ratio float64
	}
	var sets []set
	for _, d := range r.Datasets {
		if d.EpochCost == nil || d.data == nil || d.data.Len() == 0 {
			continue
		}
		sets = append(sets, set{d.Name, float64(d.data.NNZ()) / float64(d.data.Len()), d.EpochCost.Ratio})
	}
	if len(sets) < 2 {
		return ""
	}
	slices.SortStableFunc(sets, func(a, b set) int { return cmp.Compare(a.row, b.row) })
	var parts []string
	for _, s := range sets {
		parts = append(parts, fmt.Sprintf("%s %s× on rows of %s non-zeros", s.name, fmtF(s.ratio, 1), fmtF(s.row, 0)))
	}
	short, long := sets[0], sets[len(sets)-1]
	sr, lr := fmtF(short.ratio, 1), fmtF(long.ratio, 1)
	verdict := "longer rows did not bring SRG's cost closer to SGD's here"
	switch {
	case sr == lr:
		// "from 2.1 to 2.1" would say nothing: the difference is below
		// the digit shown.
		verdict = fmt.Sprintf("the row lengths here make no difference that shows: about %s times SGD's on the shortest rows and on the longest", sr)
	case long.ratio < short.ratio:
		verdict = fmt.Sprintf("the longest rows bring SRG's epoch from %s to %s times SGD's, so there its seconds follow its epochs more closely", sr, lr)
	}
	return fmt.Sprintf(" By the mean length of the rows (the sampler's work per example is the same whatever the row; the gradient's grows with it): %s; %s.",
		strings.Join(parts, ", "), verdict)
}
