export type Language = 'ru' | 'en';
