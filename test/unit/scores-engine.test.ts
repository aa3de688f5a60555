// The score formulas (docs/scores.md) against worked examples computed by hand from the formulas,
// properties (bounded 0–100, monotone where the formula is), and null while a baseline is short.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { baselineOf, BASELINE, deviationOf } from '../../src/features/scores/engine/baselines.ts';
import { computeDay, computeSleep, type History } from '../../src/features/scores/engine/day-scores.ts';
import type { DayFacts, SleepFacts } from '../../src/features/scores/engine/facts.ts';
import { bedtimeOf, sleepFacts } from '../../src/features/scores/engine/facts.ts';
import { applyDaily, applySleep } from '../../src/features/scores/engine/apply.ts';
import { recoveryScore } from '../../src/features/scores/engine/recovery.ts';
import {
  consistencyPillar,
  durationPillar,
  interruptionsPillar,
  sleepScore,
  stagesPillar,
} from '../../src/features/scores/engine/sleep-score.ts';
import { banisterTrimp, loadSummary } from '../../src/features/scores/engine/training-load.ts';
import { addDays } from '../../src/model/time.ts';
import { sexOf } from '../../src/features/scores/service.ts';

const close = (actual: number | null, expected: number, tolerance = 0.01) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${actual} ≉ ${expected}`);

describe('sleep score (Open Wearables method): worked examples', () => {
  it('duration: 100 from 7 to 9 h; the anchored sigmoids below and above', () => {
    assert.equal(durationPillar(7), 100);
    assert.equal(durationPillar(8), 100);
    assert.equal(durationPillar(9), 100);
    // 6 h: 100·(1 + e^(−1.5·2)) / (1 + e^(−1.5·1)) = 100·1.0497871 / 1.2231302 = 85.83
    close(durationPillar(6), 85.83);
    // 10 h: 100·(1 + e^(0.8·−2)) / (1 + e^(0.8·−1)) = 100·1.2018965 / 1.4493290 = 82.93
    close(durationPillar(10), 82.93);
    // 14 h: the sigmoid gives less than 50; the floor holds it at 50
    assert.equal(durationPillar(14), 50);
  });

  it('stages: deep and REM against 90 minutes each, averaged', () => {
    assert.equal(stagesPillar(45, 90), 75);
    assert.equal(stagesPillar(120, 100), 100);
    assert.equal(stagesPillar(0, 0), 0);
  });

  it('consistency: against the median earlier bedtime, 15 min grace, late and (capped) early penalties', () => {
    const earlier = [10.5, 10.75, 11]; // 22:30, 22:45, 23:00 → median 22:45
    assert.equal(consistencyPillar(11, earlier), 100); // 15 min late: within the grace
    // 00:30 is 105 min late, 90 past the grace: 100 − 90/105·100 = 14.29
    close(consistencyPillar(12.5, earlier), 14.29);
    // 21:00 is 105 min early: the penalty (85.7) is capped at 20
    assert.equal(consistencyPillar(9, earlier), 80);
    assert.equal(consistencyPillar(11, [10.5, 10.75]), null, 'fewer than 3 earlier nights');
  });

  it('interruptions: 80 points for wake time past 20 min over 70, 20 points by awakenings', () => {
    // 30 min awake: 80 − 10/70·80 = 68.57; 2 awakenings: 0.75·20 = 15 → 83.57
    close(interruptionsPillar(30, 2), 83.57);
    assert.equal(interruptionsPillar(10, 0), 100);
    assert.equal(interruptionsPillar(90, 4), 0);
  });

  it('overall: 40/20/20/20, rounded', () => {
    const result = sleepScore({
      asleepSeconds: 7.5 * 3600,
      deepSeconds: 45 * 60,
      remSeconds: 90 * 60,
      awakeSeconds: 30 * 60,
      awakenings: 2,
      bedtime: 11,
      earlierBedtimes: [10.5, 10.75, 11],
    });
    // 100·0.4 + 75·0.2 + 100·0.2 + 83.571·0.2 = 40 + 15 + 20 + 16.71 = 91.71 → 92
    assert.equal(result.score, 92);
  });

  it('no score (null) without stages, awake data or three earlier nights; never a guess', () => {
    const base = {
      asleepSeconds: 8 * 3600,
      deepSeconds: 90 * 60,
      remSeconds: 90 * 60,
      awakeSeconds: 0,
      awakenings: 0,
      bedtime: 11,
      earlierBedtimes: [11, 11, 11],
    };
    assert.equal(sleepScore(base).score, 100);
    assert.equal(sleepScore({ ...base, deepSeconds: null }).score, null);
    assert.equal(sleepScore({ ...base, awakenings: null }).score, null);
    assert.equal(sleepScore({ ...base, earlierBedtimes: [11, 11] }).score, null);
  });
});

describe('recovery: worked examples', () => {
  it('at baseline on a full night: 100 / (1 + e^−0.4) = 59.87 → 60', () => {
    assert.equal(recoveryScore({ hrvZ: 0, restingHrZ: 0, asleepSeconds: 8 * 3600 }).score, 60);
  });
  it('HRV +1 sd, resting HR −1 sd, 6 h of 8: x = 0.4 + 1 + 0.5 − 1 = 0.9 → 71.09 → 71', () => {
    const result = recoveryScore({ hrvZ: 1, restingHrZ: -1, asleepSeconds: 6 * 3600 });
    assert.equal(result.score, 71);
    assert.equal(result.contributors.sleep_performance, 0.75);
  });
  it('z beyond ±3 is clipped', () => {
    assert.equal(
      recoveryScore({ hrvZ: 9, restingHrZ: 0, asleepSeconds: 8 * 3600 }).score,
      recoveryScore({ hrvZ: 3, restingHrZ: 0, asleepSeconds: 8 * 3600 }).score,
    );
  });
});

describe('training load: worked examples', () => {
  it('Banister TRIMP: 60 min at 150 bpm, rest 50, max 190 → 60·0.714·0.64·e^(1.92·0.714) = 108.09', () => {
    close(banisterTrimp({ minutes: 60, avgHr: 150, restingHr: 50, maxHr: 190, sex: 'male' }), 108.09);
    // women: 60·0.714·0.86·e^(1.67·0.714) = 60·0.714286·0.86·3.29643 = 121.50
    close(banisterTrimp({ minutes: 60, avgHr: 150, restingHr: 50, maxHr: 190, sex: 'female' }), 121.5);
    assert.equal(banisterTrimp({ minutes: 60, avgHr: 150, restingHr: 50, maxHr: 50, sex: 'male' }), null);
  });

  it('acute:chronic, monotony and strain', () => {
    const week = [10, 20, 10, 20, 10, 20, 10];
    const summary = loadSummary([...Array<number>(21).fill(10), ...week]);
    close(summary.acute_load, 100 / 7); // 14.2857
    close(summary.chronic_load, 310 / 28); // 11.0714
    close(summary.acwr, 100 / 7 / (310 / 28)); // 1.2903
    // sd of the week = √(171.43 / 6) = 5.3452; monotony 14.2857 / 5.3452 = 2.6726; strain 100 · 2.6726
    close(summary.monotony, 2.6726, 0.001);
    close(summary.strain, 267.26, 0.1);
  });

  it('null while the windows hold too few known days', () => {
    const summary = loadSummary([...Array<number | null>(8).fill(null), ...Array<number>(20).fill(10)]);
    assert.equal(summary.chronic_load, null, '20 of 28 days');
    assert.equal(summary.acwr, null);
    assert.notEqual(summary.acute_load, null);
    assert.equal(summary.monotony, null, 'a flat week has no monotony (sd 0)');
  });
});

describe('baselines', () => {
  it('need 14 values in the 21-day window', () => {
    assert.equal(baselineOf(Array<number>(BASELINE.minDays - 1).fill(50)), null);
    const baseline = baselineOf([...Array<number>(7).fill(48), ...Array<number>(7).fill(52)]);
    assert.equal(baseline?.mean, 50);
    // sd of seven 48s and seven 52s: √(14·4 / 13) = 2.0755
    close(baseline?.sd ?? null, 2.0755, 0.001);
    const deviation = deviationOf(54, baseline!, 1);
    close(deviation.z, 4 / 2.0755, 0.001);
    assert.equal(deviation.deviation_percent, 8);
  });
});

// A person's history: `days` daily records ending on `last`, each with a night of 8 h before it.
function historyOf(days: number, last: string, overrides: Partial<DayFacts> = {}): History {
  const map = new Map<string, DayFacts>();
  const sleeps: SleepFacts[] = [];
  for (let back = days - 1; back >= 0; back--) {
    const day = addDays(last, -back);
    map.set(day, { day, restingHr: back % 2 === 0 ? 49 : 51, hrv: null, ...(back === 0 ? overrides : {}) });
    sleeps.push({
      key: `s-${day}`,
      startDay: addDays(day, -1),
      endDay: day,
      isNap: false,
      bedtime: 11,
      asleepSeconds: 8 * 3600,
      deepSeconds: 90 * 60,
      remSeconds: 90 * 60,
      awakeSeconds: 10 * 60,
      awakenings: 1,
      hrv: back % 2 === 0 ? 55 : 65,
    });
  }
  return { days: map, sleeps, sessions: [] };
}

describe('a day’s scores', () => {
  it('recovery appears once 14 earlier days are in the baseline, and not before', () => {
    assert.equal(
      computeDay('2026-03-14', historyOf(14, '2026-03-14')).recovery_score,
      null,
      '13 earlier days',
    );
    const day = computeDay('2026-03-15', historyOf(15, '2026-03-15'));
    assert.notEqual(day.recovery_score, null);
    assert.equal(day.resting_hr?.days, 14);
    assert.equal(day.sleep_score, 100);
    assert.equal(day.method, 'tributary');
  });

  it('a nap gets no sleep score; a night does', () => {
    const history = historyOf(10, '2026-03-10');
    const nap = { ...history.sleeps.at(-1)!, key: 'nap', isNap: true };
    const withNap = { ...history, sleeps: [...history.sleeps, nap] };
    assert.equal(computeSleep('nap', withNap)?.sleep_score, null);
    assert.equal(computeSleep('s-2026-03-10', withNap)?.sleep_score, 100);
  });

  it('the training load counts a known day without sessions as 0 and needs a resting HR for TRIMP', () => {
    const history = historyOf(28, '2026-04-28');
    const sessions = [{ day: '2026-04-28', minutes: 60, avgHr: 150, maxHr: 190 }];
    const day = computeDay('2026-04-28', { ...history, sessions });
    // resting HR that day is 49: HRr = 101/141; TRIMP = 60·0.7163·0.64·e^(1.92·0.7163)
    close(day.training_load.load, 60 * (101 / 141) * 0.64 * Math.exp(1.92 * (101 / 141)));
    assert.notEqual(day.training_load.acwr, null);
    assert.equal(day.training_load.trimp_coefficients, 'male (sex unknown)');
    const female = computeDay('2026-04-28', { ...history, sessions, sex: 'female' });
    close(female.training_load.load, 60 * (101 / 141) * 0.86 * Math.exp(1.67 * (101 / 141)));
    assert.equal(female.training_load.trimp_coefficients, 'female');
  });

  it('the sex comes from the athlete profile when it states one, and is otherwise unknown', () => {
    assert.deepEqual(sexOf({ sex: 'Female' }), { sex: 'female' });
    assert.deepEqual(sexOf({ sex: null, gender: 'M' }), { sex: 'male' });
    assert.deepEqual(sexOf({ sex: 'other' }), {});
    assert.deepEqual(sexOf(null), {});
  });
});

describe('scores on the record: beside the provider’s, never over them', () => {
  const computed = computeDay('2026-03-15', historyOf(15, '2026-03-15'));
  it('fills empty standard fields and lists them; keeps a provider value', () => {
    const record = { metadata: {}, scores: { recovery: 33, sleep: null }, data_enrichment: null };
    const out = applyDaily(record, computed) as Record<string, Record<string, unknown>>;
    assert.equal(out.scores!.recovery, 33, 'the provider’s own recovery stays');
    assert.equal(out.scores!.sleep, computed.sleep_score);
    assert.equal(out.data_enrichment!.readiness_score, computed.recovery_score);
    const tributary = out.data_enrichment!.tributary as Record<string, unknown>;
    assert.deepEqual(tributary.filled, [
      'scores.sleep',
      'data_enrichment.readiness_score',
      'data_enrichment.readiness_contributors',
    ]);
    assert.deepEqual(applyDaily(out, computed), out, 'recomputing is idempotent');
  });
  it('takes back its fills when a value is no longer computed', () => {
    const sleep = { metadata: {}, scores: null, data_enrichment: null };
    const filled = applySleep(sleep, {
      method: 'tributary',
      version: '1.0',
      sleep_score: 80,
      sleep_contributors: { duration: 100 },
    });
    assert.equal((filled.scores as Record<string, unknown>).sleep, 80);
    const emptied = applySleep(filled, {
      method: 'tributary',
      version: '1.0',
      sleep_score: null,
      sleep_contributors: {},
    });
    assert.equal((emptied.scores as Record<string, unknown>).sleep, undefined);
    assert.equal((emptied.data_enrichment as Record<string, unknown>).sleep_score, undefined);
  });
});

describe('facts', () => {
  it('bedtime is the written local clock time, as hours past noon', () => {
    assert.equal(bedtimeOf('2026-03-01T23:30:00.000000+01:00'), 11.5);
    assert.equal(bedtimeOf('2026-03-02T00:30:00.000000-05:00'), 12.5);
  });
  it('asleep time falls back to the sum of the stages', () => {
    const facts = sleepFacts('k', {
      metadata: { start_time: '2026-03-01T23:00:00+00:00', end_time: '2026-03-02T07:00:00+00:00' },
      sleep_durations_data: {
        asleep: {
          duration_deep_sleep_state_seconds: 3600,
          duration_light_sleep_state_seconds: 7200,
          duration_REM_sleep_state_seconds: 1800,
        },
      },
    });
    assert.equal(facts?.asleepSeconds, 12600);
    assert.equal(facts?.endDay, '2026-03-02');
  });
});

describe('properties', () => {
  const minutes = fc.double({ min: 0, max: 24 * 60, noNaN: true });
  it('every pillar and the sleep score stay within 0–100', () => {
    fc.assert(
      fc.property(
        minutes,
        minutes,
        minutes,
        minutes,
        fc.nat(20),
        fc.double({ min: 0, max: 24, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 24, noNaN: true }), { maxLength: 20 }),
        (asleep, deep, rem, awake, awakenings, bedtime, earlier) => {
          const result = sleepScore({
            asleepSeconds: asleep * 60,
            deepSeconds: deep * 60,
            remSeconds: rem * 60,
            awakeSeconds: awake * 60,
            awakenings,
            bedtime,
            earlierBedtimes: earlier,
          });
          for (const value of [result.score, ...Object.values(result.pillars)])
            if (value !== null) assert.ok(value >= 0 && value <= 100, String(value));
          assert.equal(result.score === null, earlier.length < 3);
        },
      ),
    );
  });

  it('duration rises up to 7 h and falls from 9 h; stages rise with deep and REM; interruptions fall with wake time and awakenings', () => {
    const hours = fc.double({ min: 0, max: 24, noNaN: true });
    fc.assert(
      fc.property(hours, hours, (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        if (high <= 7) assert.ok(durationPillar(low) <= durationPillar(high) + 1e-9);
        if (low >= 9) assert.ok(durationPillar(low) + 1e-9 >= durationPillar(high));
        assert.ok(stagesPillar(low * 10, 60) <= stagesPillar(high * 10, 60) + 1e-9);
        assert.ok(interruptionsPillar(low * 10, 1) + 1e-9 >= interruptionsPillar(high * 10, 1));
      }),
    );
    fc.assert(
      fc.property(fc.nat(10), fc.nat(10), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        assert.ok(interruptionsPillar(30, low) >= interruptionsPillar(30, high));
      }),
    );
  });

  it('recovery is bounded, rises with HRV and sleep, falls with resting HR', () => {
    const z = fc.double({ min: -10, max: 10, noNaN: true });
    const seconds = fc.double({ min: 0, max: 16 * 3600, noNaN: true });
    fc.assert(
      fc.property(z, z, z, seconds, seconds, (z1, z2, rhr, s1, s2) => {
        const score = (hrvZ: number, restingHrZ: number, asleepSeconds: number) =>
          recoveryScore({ hrvZ, restingHrZ, asleepSeconds }).score;
        const value = score(z1, rhr, s1);
        assert.ok(value >= 0 && value <= 100);
        const [lowZ, highZ] = z1 <= z2 ? [z1, z2] : [z2, z1];
        assert.ok(score(lowZ, rhr, s1) <= score(highZ, rhr, s1), 'HRV');
        assert.ok(score(z1, lowZ, s1) >= score(z1, highZ, s1), 'resting HR');
        const [lowS, highS] = s1 <= s2 ? [s1, s2] : [s2, s1];
        assert.ok(score(z1, rhr, lowS) <= score(z1, rhr, highS), 'sleep');
      }),
    );
  });

  it('TRIMP rises with duration and with average heart rate', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 600, noNaN: true }),
        fc.double({ min: 1, max: 600, noNaN: true }),
        fc.integer({ min: 40, max: 200 }),
        fc.integer({ min: 40, max: 200 }),
        (m1, m2, hr1, hr2) => {
          const trimp = (minutes: number, avgHr: number) =>
            banisterTrimp({ minutes, avgHr, restingHr: 50, maxHr: 190, sex: 'male' })!;
          assert.ok(trimp(Math.min(m1, m2), hr1) <= trimp(Math.max(m1, m2), hr1) + 1e-9);
          assert.ok(trimp(m1, Math.min(hr1, hr2)) <= trimp(m1, Math.max(hr1, hr2)) + 1e-9);
        },
      ),
    );
  });

  it('a baseline is given exactly when the window holds 14 values', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 20, max: 120, noNaN: true }), { maxLength: 21 }), (values) => {
        assert.equal(baselineOf(values) === null, values.length < BASELINE.minDays);
      }),
    );
  });
});
