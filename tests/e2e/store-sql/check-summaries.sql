SELECT
 (SELECT count(*) FROM (SELECT signature, host, count, first_seen, last_seen FROM signature_hosts
  EXCEPT SELECT signature, host, count(*), min(time), max(time) FROM crashes GROUP BY signature, host) AS a)
 + (SELECT count(*) FROM (SELECT signature, host, count(*), min(time), max(time) FROM crashes GROUP BY signature, host
  EXCEPT SELECT signature, host, count, first_seen, last_seen FROM signature_hosts) AS b)
 + (SELECT count(*) FROM (SELECT signature, component, version, count, approximate FROM signature_versions
  EXCEPT SELECT c.signature, v.name, coalesce(v.version, '?'), count(DISTINCT v.crash_id),
   count(DISTINCT CASE WHEN v.commit_is = 'approximate' THEN v.crash_id END)
   FROM components v JOIN crashes c ON c.id = v.crash_id GROUP BY 1, 2, 3) AS e)
 + (SELECT count(*) FROM (SELECT c.signature, v.name, coalesce(v.version, '?'), count(DISTINCT v.crash_id),
   count(DISTINCT CASE WHEN v.commit_is = 'approximate' THEN v.crash_id END)
   FROM components v JOIN crashes c ON c.id = v.crash_id GROUP BY 1, 2, 3
  EXCEPT SELECT signature, component, version, count, approximate FROM signature_versions) AS f)
 + (SELECT count(*) FROM (SELECT signature, day, count FROM signature_days
  EXCEPT SELECT signature, substr(time, 1, 10), count(*) FROM crashes WHERE time IS NOT NULL GROUP BY 1, 2) AS g)
 + (SELECT count(*) FROM (SELECT signature, substr(time, 1, 10), count(*) FROM crashes WHERE time IS NOT NULL GROUP BY 1, 2
  EXCEPT SELECT signature, day, count FROM signature_days) AS h)
 + (SELECT count(*) FROM frames WHERE crash_id NOT IN (SELECT id FROM crashes))
 + (SELECT count(*) FROM modules WHERE crash_id NOT IN (SELECT id FROM crashes))
 + (SELECT count(*) FROM components WHERE crash_id NOT IN (SELECT id FROM crashes))
 + (SELECT count(*) FROM reports WHERE crash_id NOT IN (SELECT id FROM crashes))
