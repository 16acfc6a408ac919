// Package srg implements Stochastic Reweighted Gradient descent (SRG,
// Algorithm 1 of El Hanchi and Stephens, 2021), the baselines it is compared
// with (SGD, SGD with random reshuffling, loopless SVRG), the objectives of
// the paper's experiments, and the experiments themselves.
//
// A run on a data set read by package libsvm, against SGD:
//
//	p, err := srg.NewProblem(ds, ds.Labels, srg.Logistic, 1/float64(ds.Len())) // ℓ2-regularised, μ = 1/n
//	sol, err := p.Solve(1e-12)                                                  // x*, to measure against
//	sched := srg.Constant{Alpha: 1 / (2 * p.Lmax()), Eps: 1 / (2 * float64(p.Len()))}
//	for _, m := range []srg.Method{srg.SGD, srg.SRG} {
//		tr, err := srg.Run(p, srg.Options{Method: m, Schedule: sched, Epochs: 30, XStar: sol.X})
//		// tr.RelErr: ‖x_k − x*‖²/‖x_0 − x*‖² at each checkpoint
//	}
//
// SRG's sampler is levels unless Options.NewSampler says otherwise.
// Synthetic and Dataset run the paper's experiments whole. See ExampleRun.
//
// # Design
//
// SRG samples example i with the probability p_k^i of Lemma 1, computed from
// a table of the last seen gradient norm of every example, and steps along
// ∇f_i(x_k)/(n p_k^i), an unbiased estimate of ∇F(x_k). The table lives in a
// sampler supplied by the caller (a reweighted.Distribution of either kind),
// so SRG costs O(n) memory and, with the default levels, O(1) expected time
// per draw and per update on top of SGD (O(log n) with a tree-based,
// map-exact sampler such as btree).
//
// The objectives are ℓ2-regularised generalised linear models: rows from any
// Rows (sparse, such as *libsvm.Dataset, or Dense), and a per-example Loss of
// the margin — Logistic, Squared, or a user type that implements Loss. A
// per-example gradient is a multiple of its row plus μx, so every method keeps
// x in scaled form and pays O(nnz) per gradient. All methods count gradient evaluations the
// same way, and Run records the relative error ‖x_k − x*‖²/‖x_0 − x*‖² and the
// estimator variance σ²(x_k, p_k) against that count.
//
// Mini-batches are drawn with replacement (Options.Protocol's zero value) or,
// as in the paper's experiments and by default in Dataset, without: SGD and
// SVRG take m distinct examples uniformly, and SRG takes them by ordered
// successive sampling from p_k (reweighted.DrawBatch) and weights them with
// Des Raj's estimator (DesRajWeights), which is unbiased for this design.
// Under either protocol SRG draws a mini-batch with one reweighted.DrawBatch
// and sets its new keys with one reweighted.SetBatch, so a sampler's batch
// paths serve every iteration. With batches of 1 (Algorithm 1 as written)
// it sets the key of one iteration and draws the example of the next in
// one reweighted.Step, the sampler's fused step where it has one; the
// steps, the examples and the trace are those of Set and then Draw.
//
// The minimiser x* that the traces measure against is found by dense Newton
// up to DenseMaxDim features and by Newton-CG, on Hessian-vector products
// over the sparse rows, above (Problem.SolveWith); L likewise comes from
// dense eigenvalues or, above DenseMaxDim, from a Lanczos upper bound. No
// d×d matrix is formed above DenseMaxDim, and DatasetMemory estimates what
// an experiment needs before it runs.
//
// A run stops and goes on exactly. Options.Checkpoint receives the run's
// State at every checkpoint; SaveFile writes it atomically (a crash leaves
// the last good file), and an error from Checkpoint, ErrStop by
// convention, stops the run. LoadFile and Resume go on from the file and
// record the trace of the run that never stopped, bit for bit (but for the
// time measured), whatever the method, the protocol and the kind of
// sampler. The State holds everything the run carries: the iterate as it
// is kept, the step counter, the random source, SRG's sampler (with
// levels' layout), SVRG's reference point and full gradient, the
// reshuffled order and the trace so far. Its encoding is versioned and
// checksummed, and a damaged or hostile one is an error wrapping ErrState.
//
// Synthetic and Dataset reproduce Section 5 and Appendices C–D of the paper.
package srg
