package nemesis_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios/nemesis"
)

func TestParseProfile(t *testing.T) {
	p, err := nemesis.ParseProfile("crash-restart:mttf=60s")
	require.NoError(t, err)
	require.Equal(t, "crash-restart:mttf=1m0s,mttr=20s", p.String(), "defaults filled, canonical form")
	again, err := nemesis.ParseProfile(p.String())
	require.NoError(t, err)
	require.Equal(t, p, again)
	p, err = nemesis.ParseProfile("flaky-network:loss=0.10")
	require.NoError(t, err)
	require.Equal(t, "0.1", p.Params["loss"])

	for text, want := range map[string]string{
		"nope":                     `unknown fault profile "nope"`,
		"crash-restart:mttf":       `bad parameter "mttf"`,
		"crash-restart:colour=red": `bad parameter "colour=red"`,
		"crash-restart:mttf=soon":  `mttf="soon" is not a positive duration`,
		"crash-restart:mttr=0s":    `mttr="0s" is not a positive duration`,
		"partitions:rate=-1":       `rate="-1" is not a non-negative number`,
		"partitions:kind=sideways": `kind="sideways": want minority, majority, leader or random`,
		"flaky-network:loss=1.5":   `loss="1.5" is not a probability`,
		"mixed:duration=10s,dup=x": `dup="x" is not a probability`,
	} {
		_, err := nemesis.ParseProfile(text)
		require.ErrorContains(t, err, want, text)
	}
}
