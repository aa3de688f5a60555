export const TRAININGPEAKS_API = 'https://api.trainingpeaks.com';
