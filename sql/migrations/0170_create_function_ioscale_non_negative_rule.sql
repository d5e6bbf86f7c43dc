-- The field rule "not negative" of the Flink job's decoder (AvroRecords.nonNegative), with its words: '' when
-- every value in `values` is >= 0, else '<name> <value> is negative' for the first one that is not, its name
-- taken from `names` at the same position. The rules of each record type (fragments/*_rules.sql) call it in
-- the order the job checks its fields, so the first rule broken is the one both paths name.
CREATE FUNCTION IF NOT EXISTS ioscaleNonNegativeRule AS (names, values) ->
    if(arrayExists(v -> v < 0, values),
       concat(names[arrayFirstIndex(v -> v < 0, values)], ' ', toString(arrayFirst(v -> v < 0, values)),
              ' is negative'),
       '')
