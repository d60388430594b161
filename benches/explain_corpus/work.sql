-- The explain corpus's SQL workload (our own): inserts through a recursive CTE, an index,
-- grouping, a join, LIKE and ordering; prints a few aggregates.
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO t SELECT i, (i * 7919) % 1009, printf('n%05d_%x', i % 3001, i * 31), (i % 97) * 1.5 FROM c;
CREATE INDEX t_k ON t(k);
CREATE TABLE u AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k;
SELECT count(*), sum(n), round(sum(s), 1) FROM u;
SELECT count(*) FROM t JOIN u ON t.k = u.k WHERE u.n > 19;
SELECT count(*) FROM t WHERE name LIKE 'n00%_a%';
SELECT k, max(v), min(name) FROM t WHERE k BETWEEN 100 AND 200 GROUP BY k ORDER BY 3 DESC LIMIT 3;
UPDATE t SET v = v * 2 WHERE k % 3 = 0;
DELETE FROM t WHERE id % 5 = 0;
SELECT count(*), round(avg(v), 3) FROM t;
