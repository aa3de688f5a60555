// Patient service centres (lab draw sites) for GO_TO_LAB orders: `GET /api/v1/labs?zip_code=`
// lists the nearest ones, `requested_lab.code` binds an order to one, and an order sent with only
// a requested_lab_address is bound to the site nearest its postal code. The sandbox ships a small
// fixed directory of US sites; distances are estimated from the numeric distance between ZIP
// codes (neighbouring ZIP codes are neighbouring places), which is what a sandbox needs: stable,
// ordered, plausible. A production directory implements the same interface.

export type LabAddress = {
  address_line_1: string;
  address_line_2?: string;
  administrative_area: string;
  city: string;
  country_code: string;
  postal_code: string;
};

/** A draw site as `/labs` lists it, minus the request-relative distance (ConfirmedLab). */
export type Lab = {
  code: string;
  name: string;
  address: LabAddress;
  phone: string;
  hours: Record<string, string>;
  latitude: number;
  longitude: number;
  scheduling: boolean;
};

export type LabDirectory = {
  /** The nearest sites to a 5-digit US ZIP (ZIP+4 accepted), nearest first, with miles. */
  near(zip: string, limit?: number): (Lab & { distance: number })[];
  byCode(code: string): Lab | undefined;
};

const WEEKDAYS = {
  monday: '07:00-16:00',
  tuesday: '07:00-16:00',
  wednesday: '07:00-16:00',
  thursday: '07:00-16:00',
  friday: '07:00-15:00',
};
const WITH_SATURDAY = { ...WEEKDAYS, saturday: '08:00-12:00' };

const site = (
  code: string,
  name: string,
  street: string,
  city: string,
  state: string,
  zip: string,
  phone: string,
  position: [number, number],
  saturday = false,
): Lab => ({
  code,
  name,
  address: { address_line_1: street, administrative_area: state, city, country_code: 'US', postal_code: zip },
  phone,
  hours: saturday ? WITH_SATURDAY : WEEKDAYS,
  latitude: position[0],
  longitude: position[1],
  scheduling: true,
});

export const SANDBOX_LABS: readonly Lab[] = [
  site(
    'T2O',
    'Sandbox Diagnostics - NYC 26th St',
    '305 W 26th St',
    'New York',
    'NY',
    '10001',
    '+1-212-555-0100',
    [40.7478, -73.9986],
    true,
  ),
  site(
    'NYC4',
    'Sandbox Diagnostics - Midtown East',
    '150 E 42nd St',
    'New York',
    'NY',
    '10017',
    '+1-212-555-0142',
    [40.7506, -73.9755],
  ),
  site(
    'BKN1',
    'Sandbox Diagnostics - Brooklyn Heights',
    '26 Court St',
    'Brooklyn',
    'NY',
    '11201',
    '+1-718-555-0119',
    [40.6937, -73.9903],
    true,
  ),
  site(
    'BOS2',
    'Sandbox Diagnostics - Back Bay',
    '500 Boylston St',
    'Boston',
    'MA',
    '02116',
    '+1-617-555-0160',
    [42.3505, -71.0726],
  ),
  site(
    'PHL1',
    'Sandbox Diagnostics - Center City',
    '1500 Market St',
    'Philadelphia',
    'PA',
    '19102',
    '+1-215-555-0133',
    [39.9524, -75.1659],
  ),
  site(
    'DCA3',
    'Sandbox Diagnostics - Dupont Circle',
    '1350 Connecticut Ave NW',
    'Washington',
    'DC',
    '20036',
    '+1-202-555-0177',
    [38.9092, -77.043],
    true,
  ),
  site(
    'CHI5',
    'Sandbox Diagnostics - The Loop',
    '33 W Monroe St',
    'Chicago',
    'IL',
    '60603',
    '+1-312-555-0188',
    [41.8807, -87.6293],
  ),
  site(
    'SPI1',
    'Sandbox Diagnostics - Springfield',
    '800 E Monroe St',
    'Springfield',
    'IL',
    '62701',
    '+1-217-555-0101',
    [39.8003, -89.6437],
  ),
  site(
    'DAL2',
    'Sandbox Diagnostics - Uptown',
    '2100 McKinney Ave',
    'Dallas',
    'TX',
    '75201',
    '+1-214-555-0155',
    [32.7942, -96.8031],
  ),
  site(
    'DEN1',
    'Sandbox Diagnostics - LoDo',
    '1801 Wynkoop St',
    'Denver',
    'CO',
    '80202',
    '+1-303-555-0166',
    [39.7531, -104.9996],
    true,
  ),
  site(
    'LAX7',
    'Sandbox Diagnostics - Westwood',
    '10833 Le Conte Ave',
    'Los Angeles',
    'CA',
    '90095',
    '+1-310-555-0171',
    [34.0664, -118.4459],
  ),
  site(
    'SFO2',
    'Sandbox Diagnostics - SoMa',
    '600 Townsend St',
    'San Francisco',
    'CA',
    '94103',
    '+1-415-555-0149',
    [37.7706, -122.4026],
    true,
  ),
  site(
    'SEA1',
    'Sandbox Diagnostics - First Hill',
    '1101 Madison St',
    'Seattle',
    'WA',
    '98104',
    '+1-206-555-0122',
    [47.6097, -122.3247],
  ),
];

const ZIP = /^(\d{5})(-\d{4})?$/;

/** The 5-digit ZIP of a US postal code (ZIP+4 normalised), or null when it is none. */
export function zip5(postalCode: string): string | null {
  return ZIP.exec(postalCode.trim())?.[1] ?? null;
}

/** Miles between two ZIPs, estimated: 0.5 mile per unit of numeric ZIP difference, to 0.1. */
const milesBetween = (a: string, b: string) => Math.round(Math.abs(Number(a) - Number(b)) * 5) / 10;

export function createLabDirectory(labs: readonly Lab[] = SANDBOX_LABS): LabDirectory {
  const codes = new Map(labs.map((lab) => [lab.code.toUpperCase(), lab]));
  return {
    near(zip, limit = 5) {
      const origin = zip5(zip);
      if (!origin) return [];
      return labs
        .map((lab) => ({ ...lab, distance: milesBetween(origin, lab.address.postal_code) }))
        .sort((left, right) => left.distance - right.distance || left.code.localeCompare(right.code))
        .slice(0, limit);
    },
    byCode: (code) => codes.get(code.trim().toUpperCase()),
  };
}

/**
 * The site a GO_TO_LAB order is bound to: the requested code when it names a known site, else the
 * site nearest the requested lab address's (or the requested lab's) postal code; none otherwise.
 */
export function boundLab(
  directory: LabDirectory,
  order: {
    collection_type: string;
    requested_lab: { code: string; postal_code?: string } | null;
    requested_lab_address: { postal_code: string } | null;
  },
): Lab | null {
  if (order.collection_type !== 'GO_TO_LAB') return null;
  const requested = order.requested_lab ? directory.byCode(order.requested_lab.code) : undefined;
  if (requested) return requested;
  const postal = order.requested_lab?.postal_code ?? order.requested_lab_address?.postal_code;
  const nearest = postal ? directory.near(postal, 1)[0] : undefined;
  if (!nearest) return null;
  const { distance: _distance, ...lab } = nearest;
  return lab;
}
