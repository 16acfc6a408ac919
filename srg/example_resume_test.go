package srg_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// A run that saves its state at every checkpoint and stops after 3 epochs,
// as a job at its time limit would, then goes on from the file to the end:
// its trace is that of the run that never stopped.
func ExampleResume() {
	dir, err := os.MkdirTemp("", "srg")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "run.state")

	ds := libsvm.Synthetic(1, 500, 10)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0.01)
	if err != nil {
		panic(err)
	}
	o := srg.Options{Method: srg.SRG, Schedule: srg.Constant{Alpha: 0.005, Eps: 0.5 / 500}, Batch: 8,
		Protocol: srg.WithoutReplacement, Epochs: 10, PerEpoch: 2, Seed: 1}
	o.Checkpoint = func(st *srg.State) error {
		if err := srg.SaveFile(file, st); err != nil {
			return err
		}
		if st.Epoch() == 3 { // or a deadline, or a signal
			return srg.ErrStop
		}
		return nil
	}
	tr, err := srg.Run(p, o)
	fmt.Println("stopped:", errors.Is(err, srg.ErrStop), "at epoch", tr.Evals[len(tr.Evals)-1])

	// Later, in this process or another: the same Problem and Options.
	var st srg.State
	if err := srg.LoadFile(file, &st); err != nil {
		panic(err)
	}
	tr, err = srg.Resume(p, o, &st)
	if err != nil {
		panic(err)
	}
	o.Checkpoint = nil
	whole, err := srg.Run(p, o)
	if err != nil {
		panic(err)
	}
	fmt.Println("resumed to epoch", tr.Evals[len(tr.Evals)-1], "with the iterate of the run that never stopped:",
		slices.Equal(tr.X, whole.X))
	// Output:
	// stopped: true at epoch 3
	// resumed to epoch 10 with the iterate of the run that never stopped: true
}
