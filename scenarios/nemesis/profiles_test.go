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
		"crash-restart:mttf=soon":  `mttf="soon" is not a duration from 1s to 720h0m0s`,
		"crash-restart:mttr=0s":    `mttr="0s" is not a duration from 1s to 720h0m0s`,
		"crash-restart:mttf=1ns":   `mttf="1ns" is not a duration from 1s to 720h0m0s`,
		"crash-restart:mttf=9999h": `mttf="9999h" is not a duration from 1s to 720h0m0s`,
		"partitions:duration=1ms":  `duration="1ms" is not a duration from 100ms to 720h0m0s`,
		"flaky-network:delay=1h":   `delay="1h" is not a duration from 0s to 10s`,
		"partitions:rate=-1":       `rate="-1" is not a number of faults per minute from 0 to 60`,
		"partitions:rate=NaN":      `rate="NaN" is not a number of faults per minute`,
		"partitions:rate=1e300":    `rate="1e300" is not a number of faults per minute`,
		"partitions:rate=+Inf":     `rate="+Inf" is not a number of faults per minute`,
		"flaky-network:loss=NaN":   `loss="NaN" is not a probability`,
		"flaky-network:dup=-0.1":   `dup="-0.1" is not a probability`,
		"partitions:kind=sideways": `kind="sideways": want minority, majority, leader or random`,
		"flaky-network:loss=1.5":   `loss="1.5" is not a probability`,
		"mixed:duration=10s,dup=x": `dup="x" is not a probability`,
	} {
		_, err := nemesis.ParseProfile(text)
		require.ErrorContains(t, err, want, text)
	}
}
