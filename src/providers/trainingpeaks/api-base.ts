export const TRAININGPEAKS_API = 'https://api.trainingpeaks.com';
/** Days one workouts or metrics read spans: the wiki states no longest range [unconfirmed limit]. */
export const TRAININGPEAKS_CHUNK_DAYS = 30;
