package docgen

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/internal/bughunt"
	"github.com/kubesim/kubesim/internal/fidelity"
	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// Block is a generated region of a hand-written page: the text between a
// line "<!-- generated: NAME -->" and the next line "<!-- end -->". The
// page around it is written by hand; the block is written by
// `go generate ./...` and checked by TestReadmeUpToDate.
type Block struct {
	Name string
	Body string // whole lines, each ending in "\n"
}

// ReadmeBlocks renders the generated blocks of README.md.
func ReadmeBlocks() []Block {
	return []Block{countsBlock()}
}

// BlockBegin and BlockEnd are the marker lines around a block.
func BlockBegin(name string) string { return "<!-- generated: " + name + " -->\n" }

// BlockEnd closes every block.
const BlockEnd = "<!-- end -->\n"

// Splice replaces the body of block b in doc with b.Body. It fails when
// doc lacks the block's markers or holds them twice.
func Splice(doc string, b Block) (string, error) {
	begin := BlockBegin(b.Name)
	i := strings.Index(doc, begin)
	if i < 0 {
		return "", fmt.Errorf("no line %q", strings.TrimSuffix(begin, "\n"))
	}
	if strings.Contains(doc[i+len(begin):], begin) {
		return "", fmt.Errorf("the line %q appears twice", strings.TrimSuffix(begin, "\n"))
	}
	if i > 0 && doc[i-1] != '\n' {
		return "", fmt.Errorf("%q must start a line", strings.TrimSuffix(begin, "\n"))
	}
	start := i + len(begin)
	j := strings.Index(doc[start:], BlockEnd)
	if j < 0 || (j > 0 && doc[start+j-1] != '\n') {
		return "", fmt.Errorf("no line %q after %q", strings.TrimSuffix(BlockEnd, "\n"), strings.TrimSuffix(begin, "\n"))
	}
	return doc[:start] + b.Body + doc[start+j:], nil
}

// countsBlock is README's one line of counts: what the registries hold,
// and the versions modelled.
func countsBlock() Block {
	layers := map[string]int{}
	cat := scenarios.Catalogue()
	for _, s := range cat {
		layers[s.Layer()]++
	}
	var perLayer []string
	for _, l := range []struct{ layer, name string }{{"etcd", "etcd"}, {"api", "API"}, {"stack", "full stack"}} {
		perLayer = append(perLayer, fmt.Sprintf("%d %s", layers[l.layer], l.name))
	}
	caught, measured := 0, 0
	for _, a := range scenarios.Ablations() {
		if a.Check != "" {
			caught++
		} else {
			measured++
		}
	}
	line := fmt.Sprintf("[%d scenarios](docs/scenarios.md) (%s) · [%d checks](docs/checks.md) · [%d ablations](docs/ablations.md) (%d caught by a check, %d measured) · [%d fault kinds](docs/faults.md) · [%d BUGGIFY points](docs/buggify.md) · [%d metrics](docs/metrics.md) · a bug-hunt set of %d runs ([mutation testing](docs/mutation.md)) · modelled on [Kubernetes %s and etcd %s](docs/fidelity.md)\n",
		len(cat), strings.Join(perLayer, ", "), len(checks.Registry()), caught+measured, caught, measured,
		len(sim.DescribeFaultKinds()), len(sim.BuggifyPoints()), len(metrics.Registry()), len(bughunt.Matrix()), fidelity.Kubernetes, fidelity.Etcd)
	return Block{Name: "counts", Body: line}
}
