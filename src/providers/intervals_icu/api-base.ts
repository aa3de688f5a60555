export const INTERVALS_ICU_API = 'https://intervals.icu/api/v1';
