package model

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGetScaledValueFromIntOrPercent(t *testing.T) {
	cases := []struct {
		in      IntOrString
		total   int
		roundUp bool
		want    int
	}{
		{FromString("25%"), 3, true, 1},
		{FromString("25%"), 3, false, 0},
		{FromString("25%"), 4, true, 1},
		{FromString("25%"), 4, false, 1},
		{FromString("25%"), 10, true, 3},
		{FromString("25%"), 10, false, 2},
		{FromString("100%"), 7, false, 7},
		{FromString("0%"), 7, true, 0},
		{FromString("33%"), 1, true, 1},
		{FromString("33%"), 1, false, 0},
		{FromString("150%"), 2, true, 3},
		{FromString("25%"), 0, true, 0},
		{FromInt(2), 10, true, 2},
		{FromInt(2), 10, false, 2},
		{FromInt(5), 3, false, 5},
	}
	for _, c := range cases {
		got, err := GetScaledValueFromIntOrPercent(&c.in, c.total, c.roundUp)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s of %d roundUp=%v", c.in.String(), c.total, c.roundUp)
	}
	_, err := GetScaledValueFromIntOrPercent(nil, 3, true)
	assert.EqualError(t, err, "nil value for IntOrString")
	bad := FromString("25")
	_, err = GetScaledValueFromIntOrPercent(&bad, 3, true)
	assert.EqualError(t, err, "invalid value for IntOrString: invalid type: string is not a percentage")
	bad = FromString("x%")
	_, err = GetScaledValueFromIntOrPercent(&bad, 3, true)
	assert.ErrorContains(t, err, `invalid value for IntOrString: invalid value "x%"`)
}

func TestResolveFenceposts(t *testing.T) {
	cases := []struct {
		surge, unavail IntOrString
		desired        int32
		wantS, wantU   int32
	}{
		{FromString("25%"), FromString("25%"), 3, 1, 0},
		{FromString("25%"), FromString("25%"), 10, 3, 2},
		{FromInt(0), FromInt(0), 3, 0, 1},
		{FromString("0%"), FromString("10%"), 3, 0, 1}, // 10% of 3 rounds down to 0, then becomes 1
		{FromInt(2), FromInt(1), 5, 2, 1},
	}
	for _, c := range cases {
		s, u, err := ResolveFenceposts(&c.surge, &c.unavail, c.desired)
		require.NoError(t, err)
		assert.Equal(t, []int32{c.wantS, c.wantU}, []int32{s, u})
	}
}

func TestIntOrStringJSON(t *testing.T) {
	for _, v := range []IntOrString{FromInt(3), FromString("25%"), FromInt(0), FromString("")} {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		var back IntOrString
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, v, back)
	}
	data, _ := json.Marshal(FromInt(3))
	assert.Equal(t, "3", string(data))
	data, _ = json.Marshal(FromString("25%"))
	assert.Equal(t, `"25%"`, string(data))
}
