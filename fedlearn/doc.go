// Package fedlearn trains models by federated learning with locally private
// gradients: Zhao et al.'s LDP-FedSGD (Algorithm 1, "Local differential
// privacy-based federated learning for the Internet of Things",
// Section III-B) and Baek & Chung's federated-averaging experiment
// (N-output paper §5.3, Fig. 5), through any registered mechanism.
//
// Models ([Model]): linear regression with the squared loss, logistic
// regression and the linear SVM (hinge loss) on labels ±1, and multinomial
// logistic regression; each gives the loss, the gradient of one tuple
// written into a caller's slice, and the test error of a tuple. The ℓ2 term
// (λ/2)‖θ‖², λ = 1e-4 (Zhao et al. Section VII-B), is added on the server
// ([FedSGD]) and in [Objective].
//
// LDP-FedSGD ([FedSGD]): disjoint groups of users, one pass, each user's
// gradient clipped per coordinate to [−Clip, Clip] (default 1) and
// perturbed once by a d-dimensional mechanism ([NewMechanism]: Algorithm
// 6's k-of-d sampling over any registered 1-D mechanism, Duchi et al.'s
// multi-dimensional mechanism, the Laplace split, optionally with
// Algorithm 5's discretisation). The paper leaves η, |G|, θ₀ and the
// gradient mapping unstated (ERRATA E3.17): they are fields here, and the
// kind fl records the values it used in every row (docs/fl.md).
//
// Baek & Chung's protocol ([Clients], [BaekChung]): 500 clients, 50
// rounds of 50 clients, 5 local epochs of SGD, updates clamped to ±0.3
// and perturbed coordinate-wise with k-of-d ([BaekChungMechanism]: the
// paper's intent by default, the authors' code's quirks, E0.27, as a
// compat option).
//
// Data helpers: [TrainTest] (80/20 split), [KFold] (10-fold
// cross-validation, repeated with fresh permutations), [Standardise]
// (scikit-learn's StandardScaler, fitted on the training part).
//
// Nothing in a training loop allocates: [Workspace] and [ClientWorkspace]
// hold the scratch, and every randomness comes from the caller's
// *rand.Rand, so a run is a deterministic function of its seed.
package fedlearn
