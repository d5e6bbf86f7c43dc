-- The field rule "a finite number >= 0" of the Flink job's decoder (AvroRecords.nonNegativeFinite): '' when v is
-- >= 0 and finite, else '<name> <v> is not a finite number >= 0' with v spelled as Java's Double.toString
-- spells it, so both paths give the same reason: NaN, Infinity, -Infinity; plain decimals with at least one
-- fractional digit (-1.0, -0.5) for 10^-3 <= |v| < 10^7; otherwise computerized scientific notation
-- (-1.4210854715202004E-14, -1.0E7). The digits are ClickHouse's shortest round-trip ones; Java 17 prints the
-- same but for rare values where it prints more (-2.0E23 as -1.9999999999999998E23, -Double.MIN_VALUE as
-- -4.9E-324, here -5.0E-324): the rule and the value are the same, those digits differ. -0.0 is >= 0 for both.
CREATE FUNCTION IF NOT EXISTS ioscaleNonNegativeFiniteRule AS (name, v) ->
    if(v >= 0 AND NOT isInfinite(v), '',
       concat(name, ' ',
              multiIf(isNaN(v), 'NaN',
                      isInfinite(v), if(v > 0, 'Infinity', '-Infinity'),
                      abs(v) >= 1e-3 AND abs(v) < 1e7,
                          if(position(toString(v), '.') > 0, toString(v), concat(toString(v), '.0')),
                      -- ClickHouse's own exponent form (|v| < 1e-5 or >= 1e21): mantissa and exponent as they are
                      position(toString(v), 'e') > 0,
                          concat(if(position(splitByChar('e', toString(v))[1], '.') > 0,
                                    splitByChar('e', toString(v))[1], concat(splitByChar('e', toString(v))[1], '.0')),
                                 'E', toString(toInt32(splitByChar('e', toString(v))[2]))),
                      -- a plain decimal outside Java's plain range: its significant digits, point after the first
                      concat(if(v < 0, '-', ''),
                             substring(trimBoth(replaceOne(toString(abs(v)), '.', ''), '0'), 1, 1), '.',
                             if(length(trimBoth(replaceOne(toString(abs(v)), '.', ''), '0')) > 1,
                                substring(trimBoth(replaceOne(toString(abs(v)), '.', ''), '0'), 2), '0'),
                             'E',
                             toString(toInt32(position(concat(toString(abs(v)), '.'), '.')) - 2
                                      - toInt32(length(replaceOne(toString(abs(v)), '.', ''))
                                                - length(trimLeft(replaceOne(toString(abs(v)), '.', ''), '0')))))),
              ' is not a finite number >= 0'))
