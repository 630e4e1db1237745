package catalogue_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestFuzzEncoding: fuzzEncode lays out what the decoder reads back, and
// whatever the bytes, every layer's decoder reads the BUGGIFY bit and gives faults that validate,
// come within the layer's fault window and, triggered ones too, end by
// its end; FuzzEtcd's seeds hold one fault of each kind it draws. It runs
// no world: the fuzz targets' seeds do.
func TestFuzzEncoding(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		h := fuzzHeader{Members: byte(rng.Uint32()), Seed: rng.Uint32(), Clients: byte(rng.Uint32()), Think: byte(rng.Uint32()), Compaction: byte(rng.Uint32())}
		r := fuzzRecord{Kind: byte(rng.Uint32()), At: byte(rng.Uint32()), For: byte(rng.Uint32()), Mask: uint16(rng.Uint32()), Mode: byte(rng.Uint32()),
			P1: byte(rng.Uint32()), P2: byte(rng.Uint32()), P3: byte(rng.Uint32()), Trigger: byte(rng.Uint32())}
		b := fuzzBytes(fuzzEncode(h, r))
		require.Len(t, b, fuzzHeaderLen+fuzzRecordLen)
		require.Equal(t, h, b.header())
		require.Equal(t, r, b.record())
		require.Empty(t, b)
	}
	for _, l := range []fuzzLayer{fuzzEtcd, fuzzAPI, fuzzStack} {
		for range 2000 {
			data := make([]byte, rng.IntN(fuzzHeaderLen+fuzzMaxFaults*fuzzRecordLen+20))
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			o := l.decode(data)
			require.LessOrEqual(t, len(o.Schedule), fuzzMaxFaults)
			for _, f := range o.Schedule {
				require.NoError(t, f.Validate(), "%s: %s", l.scenario, sim.Schedule{f})
				require.GreaterOrEqual(t, f.At, l.start, "%s: %s", l.scenario, sim.Schedule{f})
				end := f.At + f.For
				if f.On != nil {
					end = f.On.Until + f.On.Within + f.For
				}
				require.LessOrEqual(t, end, l.end, "%s: %s", l.scenario, sim.Schedule{f})
			}
		}
	}
	// The BUGGIFY bit, read by every layer.
	for _, l := range []fuzzLayer{fuzzEtcd, fuzzAPI, fuzzStack} {
		require.False(t, l.decode(fuzzEncode(fuzzHeader{Compaction: 7})).Buggify, l.scenario)
		require.True(t, l.decode(fuzzEncode(fuzzHeader{Compaction: fuzzBuggify})).Buggify, l.scenario)
	}
	var kinds []sim.FaultKind
	for _, s := range fuzzEtcdSeeds() {
		for _, f := range fuzzEtcd.decode(s).Schedule {
			kinds = append(kinds, f.Kind)
		}
	}
	require.Subset(t, kinds, fuzzEtcd.kinds)
}
