// Package figures draws an experiment's summaries as figures with gonum/plot.
//
// A figure is a projection of the summary (results.Summary rows): a Spec
// picks one metric for the y axis, a field for the x axis (eps, n or a
// params key), a field whose values make the series (lines, usually the
// method) and a field whose values make the panels (usually the dataset),
// and filters the rows by field values. Project turns summaries and a spec
// into a Figure (panels of series of points, in the order the summaries
// first name them, which is plan order); Render draws that figure and
// writes it as SVG, PNG and PDF.
//
// Every figure is honest about what it shows. Each measured point is the
// mean over trials with its 95% confidence interval, drawn as error bars or
// a shaded band; the theory value, where the summary knows it, is a dashed
// line in the series' colour; a caption under the panels says so, with the
// number of trials. A log axis cannot show values ≤ 0: such points are left
// out and CI lower bounds ≤ 0 are cut at the panel's smallest positive
// value, each with a warning and a count in the caption.
//
// A spec's references (Reference) are values printed in a paper, drawn
// beside the measurements as hollow diamonds on a dotted line, in the
// colour of the series they belong to and under their own label in the
// legend, and the caption says they are the paper's, not measured. A
// reference whose series the summaries lack (a run at another scale) is
// drawn in black with a warning rather than failing the figure.
//
// A series keeps its colour and marker in every panel of a figure, and one
// legend beside the panels names them all. SVG and PNG output is
// byte-stable, so figures are tested against golden SVG files
// (go test ./figures -update rewrites them). SVG text names the Liberation
// fonts without embedding them; a viewer without those fonts substitutes
// its own.
package figures
