package tables

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// texSpec is a table with a best cell in each row, labels holding "_",
// "%" and Unicode, and a note with every LaTeX special character.
var texSpec = Spec{
	Name: "tex_table", Title: "Variance by ε", Metric: "variance", Rows: "eps", Columns: "method",
	Filter: map[string][]string{"eps": {"0.5", "1.5", "3.5"}}, Digits: 3, Best: "min",
	Labels:  map[string]string{"a": "a_1 (50% sampled)", "b": "b & ε₁/ε ≤ 2", "best": "best"},
	Note:    `Toy note: 5% of $x$ ~ #1 {braces} a^b \ back_slash × 2.`,
	Formats: []string{"tex"},
}

func latex(t *testing.T, tab *Table) string {
	t.Helper()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if err := tab.WriteLaTeX(w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return b.String()
}

// TestLaTeXTableGolden: formats = ["tex"] writes <name>.tex beside the CSV
// and Markdown (Files lists it, no temporary file is left); the file has
// booktabs rules, the Markdown's cells with the best of each row in
// \textbf, the description and note as the caption, every special
// character escaped. The bugs caught: a "_" or "%" in a label breaking
// the document, the bold on the wrong column, digits unlike the
// Markdown's.
func TestLaTeXTableGolden(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(toy(), texSpec, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tex_table.csv", "tex_table.md", "tex_table.tex"}
	if !slices.Equal(files, texSpec.Files(dir)) || len(files) != 3 {
		t.Fatalf("wrote %v, Files says %v", files, texSpec.Files(dir))
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for i, e := range entries {
		names = append(names, e.Name())
		if filepath.Base(files[i]) != want[i] {
			t.Errorf("file %d is %s, want %s", i, files[i], want[i])
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("directory holds %v, want %v", names, want)
	}
	tex, err := os.ReadFile(files[2])
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tex-table.golden.tex", string(tex))

	// The cells are the Markdown's: same digits, bold on the same cells.
	md, _ := os.ReadFile(files[1])
	for _, cell := range []string{"**2**", "**0.816**", "2.67", "0.857"} {
		if !strings.Contains(string(md), cell) {
			t.Errorf("the Markdown lacks %s:\n%s", cell, md)
		}
		c := strings.Trim(cell, "*")
		if c != cell {
			c = `\textbf{` + c + `}`
		}
		if !strings.Contains(string(tex), c) {
			t.Errorf("the LaTeX lacks %s", c)
		}
	}
	for _, s := range []string{`a\_1 (50\% sampled)`, `b \& $\varepsilon_{1}$/$\varepsilon$ $\le$ 2`, `\toprule`, `\midrule`, `\bottomrule`,
		`5\% of \$x\$ \textasciitilde{} \#1 \{braces\} a\textasciicircum{}b \textbackslash{} back\_slash $\times$ 2.}`} {
		if !strings.Contains(string(tex), s) {
			t.Errorf("the LaTeX lacks %s", s)
		}
	}
	compile(t, files[2])
}

// TestTableTexText: each special character escaped, each mapped Unicode
// character in math (consecutive ones in one $…$), dashes as LaTeX
// writes them; and every mapped character compiles.
func TestTableTexText(t *testing.T) {
	for in, want := range map[string]string{
		`&%$#_{}~^\`:   `\&\%\$\#\_\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}`,
		"ε₁/ε":         `$\varepsilon_{1}$/$\varepsilon$`,
		"0.5 – 1":      "0.5 -- 1",
		"E[x²] × n":    `E[x$^{2}$] $\times$ n`,
		"a<b|c>d":      `a\textless{}b\textbar{}c\textgreater{}d`,
		"plain":        "plain",
		"x₁₂²₃⁴":       `x$_{12}^{2}{}_{3}^{4}$`,
		"café ε=1":     `café $\varepsilon$=1`,
		"√(E[x²] − 1)": `$\surd$(E[x$^{2}$] $-$ 1)`,
	} {
		if got := texText(in); got != want {
			t.Errorf("texText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := texProse("metric `mse_sq` of `eps`"); got != `metric \texttt{mse\_sq} of \texttt{eps}` {
		t.Errorf("texProse: %q", got)
	}
	if got := texProse("a ` b"); got != `a \textasciigrave{} b` {
		t.Errorf("texProse of an unpaired backquote: %q", got)
	}
	var all []rune
	for r := range texMath {
		all = append(all, r)
	}
	for r := range texDash {
		all = append(all, r)
	}
	slices.Sort(all)
	var b strings.Builder
	for _, r := range all {
		b.WriteString(texText("x" + string(r) + "y" + string(r) + string(r) + "\n\n"))
	}
	b.WriteString(texText(`&%$#_{}~^\<>|` + "`"))
	path := filepath.Join(t.TempDir(), "chars.tex")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	compile(t, path)
}

// TestTableFormatsRefused: an unknown or repeated format is refused, naming the
// table and the key.
func TestTableFormatsRefused(t *testing.T) {
	s := Spec{Name: "t", Metric: "mse", Rows: "eps", Columns: "method"}
	for f, want := range map[string][]string{
		`table "t": key "formats" has unknown format "pdf" (known: tex; <name>.csv and <name>.md are always written)`: {"pdf"},
		`table "t": key "formats" has unknown format "md"`:                                                            {"tex", "md"},
		`table "t": key "formats" repeats "tex"`:                                                                      {"tex", "tex"},
	} {
		s.Formats = want
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("formats %q: got %v, want %q", want, err, f)
		}
	}
	s.Formats = []string{"tex"}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
	if _, err := Write(toy(), Spec{Name: "x", Metric: "variance", Rows: "eps", Columns: "method", Formats: []string{"docx"}}, t.TempDir()); err == nil || !strings.Contains(err.Error(), `key "formats"`) {
		t.Errorf("Write with an unknown format: %v", err)
	}
}

// compile wraps the table file in a minimal article with booktabs and
// compiles it with pdflatex (else lualatex) in a temporary directory; it
// skips when no LaTeX is installed.
func compile(t *testing.T, table string) {
	t.Helper()
	engine := ""
	for _, e := range []string{"pdflatex", "lualatex"} {
		if _, err := exec.LookPath(e); err == nil {
			engine = e
			break
		}
	}
	if engine == "" {
		t.Skip("no pdflatex or lualatex on PATH: the LaTeX table is checked against the golden file only (Debian: apt-get install texlive-latex-base texlive-latex-recommended)")
	}
	dir := t.TempDir()
	body, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	doc := "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + string(body) + "\\end{document}\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", engine, filepath.Base(table), err, out)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "doc.log"))
	for _, bad := range []string{"Missing character", "Undefined control sequence", "Unicode character"} {
		if bytes.Contains(log, []byte(bad)) {
			t.Errorf("%s %s: the log says %q:\n%s", engine, filepath.Base(table), bad, log)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "doc.pdf")); err != nil || st.Size() == 0 {
		t.Errorf("%s wrote no PDF: %v", engine, err)
	}
	t.Logf("%s compiled %s", engine, filepath.Base(table))
}
