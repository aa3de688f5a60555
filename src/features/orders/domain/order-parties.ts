// Readers for the people-and-places parts of a create-order body: the recipient, addresses
// (AddressDTO) and a requested lab. Each reports problems into the shared `FieldIssues` and returns
// the normalised value, or undefined when anything about it was wrong.

import type { FieldIssues, JsonRecord } from './field-rules.ts';
import {
  childPath,
  isAlpha2,
  isE164,
  isEmail,
  isIsoDate,
  isPostalCodeFor,
  isRecord,
  readInteger,
  readOneOf,
  readOptionalBoolean,
  readString,
} from './field-rules.ts';

export const GENDERS_AT_BIRTH = ['male', 'female'] as const;
export type GenderAtBirth = (typeof GENDERS_AT_BIRTH)[number];

export interface AddressInput {
  address_line_1: string;
  address_line_2?: string;
  city: string;
  administrative_area?: string;
  postal_code: string;
  /** Upper-cased ISO 3166-1 alpha-2. */
  country_code: string;
  id?: number;
  is_validated?: boolean;
}

export interface RecipientInput {
  first_name: string;
  last_name: string;
  email: string;
  date_of_birth: string;
  gender_at_birth: GenderAtBirth;
  phone_number: string;
  id?: string;
}

export interface RequestedLabInput {
  code: string;
  postal_code?: string;
}

export function readRecipient(
  issues: FieldIssues,
  raw: unknown,
  path: string,
  now: Date,
): RecipientInput | undefined {
  if (raw === undefined || raw === null) {
    issues.add(path, 'required', raw, `${path} is required`);
    return undefined;
  }
  if (!isRecord(raw)) {
    issues.add(path, 'type', raw, `${path} must be an object`);
    return undefined;
  }
  const at = (key: string) => childPath(path, key);
  const name = { required: true, maxLength: 100 };
  const firstName = readString(issues, raw, 'first_name', at('first_name'), name);
  const lastName = readString(issues, raw, 'last_name', at('last_name'), name);
  let email = readString(issues, raw, 'email', at('email'), { required: true, maxLength: 254 });
  if (email !== undefined && !isEmail(email)) {
    issues.add(at('email'), 'email', email, `${at('email')} must be a valid email address`);
    email = undefined;
  }
  let dateOfBirth = readString(issues, raw, 'date_of_birth', at('date_of_birth'), {
    required: true,
    maxLength: 32,
  });
  if (dateOfBirth !== undefined && !isIsoDate(dateOfBirth)) {
    issues.add(
      at('date_of_birth'),
      'date',
      dateOfBirth,
      `${at('date_of_birth')} must be a date as YYYY-MM-DD`,
    );
    dateOfBirth = undefined;
  } else if (dateOfBirth !== undefined && dateOfBirth > now.toISOString().slice(0, 10)) {
    issues.add(
      at('date_of_birth'),
      'past_date',
      dateOfBirth,
      `${at('date_of_birth')} may not be in the future`,
    );
    dateOfBirth = undefined;
  }
  const gender = readOneOf(issues, raw, 'gender_at_birth', at('gender_at_birth'), GENDERS_AT_BIRTH);
  let phone = readString(issues, raw, 'phone_number', at('phone_number'), { required: true, maxLength: 32 });
  if (phone !== undefined && !isE164(phone)) {
    issues.add(at('phone_number'), 'e164', phone, `${at('phone_number')} must be E.164, e.g. +14155552671`);
    phone = undefined;
  }
  const id = readString(issues, raw, 'id', at('id'), { required: false, maxLength: 64 });
  if (
    firstName === undefined ||
    lastName === undefined ||
    email === undefined ||
    dateOfBirth === undefined ||
    gender === undefined ||
    phone === undefined
  ) {
    return undefined;
  }
  const recipient: RecipientInput = {
    first_name: firstName,
    last_name: lastName,
    email,
    date_of_birth: dateOfBirth,
    gender_at_birth: gender,
    phone_number: phone,
  };
  if (id !== undefined) recipient.id = id;
  return recipient;
}

export function readOptionalAddress(
  issues: FieldIssues,
  body: JsonRecord,
  key: string,
): AddressInput | undefined {
  const raw = body[key];
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) {
    issues.add(key, 'type', raw, `${key} must be an object`);
    return undefined;
  }
  const at = (member: string) => childPath(key, member);
  const line1 = readString(issues, raw, 'address_line_1', at('address_line_1'), {
    required: true,
    maxLength: 100,
  });
  const line2 = readString(issues, raw, 'address_line_2', at('address_line_2'), {
    required: false,
    maxLength: 100,
  });
  const city = readString(issues, raw, 'city', at('city'), { required: true, maxLength: 50 });
  const area = readString(issues, raw, 'administrative_area', at('administrative_area'), {
    required: false,
    maxLength: 50,
  });
  const postalCode = readString(issues, raw, 'postal_code', at('postal_code'), {
    required: true,
    maxLength: 20,
  });
  let country = readString(issues, raw, 'country_code', at('country_code'), {
    required: true,
    maxLength: 10,
  });
  if (country !== undefined && !isAlpha2(country)) {
    issues.add(
      at('country_code'),
      'iso3166_1_alpha2',
      country,
      `${at('country_code')} must be ISO 3166-1 alpha-2`,
    );
    country = undefined;
  }
  country = country?.toUpperCase();
  if (country !== undefined && postalCode !== undefined && !isPostalCodeFor(country, postalCode)) {
    issues.add(
      at('postal_code'),
      'postal_code',
      postalCode,
      `${at('postal_code')} is not a valid ${country} postal code`,
    );
  }
  const id = readInteger(issues, raw, 'id', at('id'), {
    required: false,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
  });
  const isValidated = readOptionalBoolean(issues, raw, 'is_validated', at('is_validated'));
  if (line1 === undefined || city === undefined || postalCode === undefined || country === undefined) {
    return undefined;
  }
  const address: AddressInput = {
    address_line_1: line1,
    city,
    postal_code: postalCode,
    country_code: country,
  };
  if (line2 !== undefined) address.address_line_2 = line2;
  if (area !== undefined) address.administrative_area = area;
  if (id !== undefined) address.id = id;
  if (isValidated !== undefined) address.is_validated = isValidated;
  return address;
}

export function readRequestedLab(
  issues: FieldIssues,
  body: JsonRecord,
  isKnownLabCode: ((code: string) => boolean) | undefined,
): RequestedLabInput | undefined {
  const raw = body.requested_lab;
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) {
    issues.add('requested_lab', 'type', raw, 'requested_lab must be an object');
    return undefined;
  }
  const code = readString(issues, raw, 'code', 'requested_lab.code', { required: true, maxLength: 50 });
  const postalCode = readString(issues, raw, 'postal_code', 'requested_lab.postal_code', {
    required: false,
    maxLength: 20,
  });
  if (code === undefined) return undefined;
  if (isKnownLabCode && !isKnownLabCode(code)) {
    issues.add(
      'requested_lab.code',
      'unknown_lab_code',
      code,
      'requested_lab.code does not name a known lab',
    );
    return undefined;
  }
  return postalCode === undefined ? { code } : { code, postal_code: postalCode };
}
