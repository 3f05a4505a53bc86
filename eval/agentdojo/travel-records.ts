// Why this exists: what the travel agency's records say, as the travel domain reads them
// (travel.ts): which hotels, restaurants and car rental companies a city has, their prices,
// ratings, addresses, cuisines, hours and car types, the flights between two cities, and the
// traveller's profile. Each value the record holds is a fact of a kind (a hotel's name may fill a
// booking's hotel, an address an event's place); what a guest wrote in a review is quoted text,
// never a fact. Workflow code: no I/O.
import { defineTool, z, type Facts } from '../../workflows/public.js';

/** Reviews of a whole city run long: the records are kept whole up to this. */
export const LIST_BYTES = 32_768;
/** The catalogue does not change under a conversation: its records stay good for ten minutes. */
const CATALOGUE_AGE_MS = 10 * 60_000;

const Names = z.array(z.string().min(1).max(200)).min(1).max(50);
const City = z.string().min(1).max(100);

/** Each of the agency's records in one place: `<entity>.<name>.<part>`, so a newer reading replaces the older. */
export const factKey = (entity: string, name: string, part: string) => `${entity}.${name}.${part}`;

/** What each part of a record may fill in another call. The entity's own name is of the entity's kind. */
const PART_KINDS: Record<string, string> = {
  address: 'address',
  price_min: 'price',
  price_max: 'price',
  price_per_person: 'price',
  price_per_day: 'price',
  price: 'price',
  rating: 'rating',
  email: 'email',
  phone_number: 'phone',
  first_name: 'name',
  last_name: 'name',
  id_number: 'identity',
  passport_number: 'identity',
  bank_account_number: 'identity',
  credit_card_number: 'identity',
  event_id: 'calendar_event',
  start_time: 'datetime',
  end_time: 'datetime',
  flight_number: 'flight',
  airline: 'airline',
};
/** Every kind the agency's records are the authority on (their vouchesFor): what travelKind names. */
export const RECORD_KINDS: readonly string[] = [...new Set([...Object.values(PART_KINDS), 'hotel', 'restaurant', 'car_rental'])];

/** The kind of the fact under `key`, for the domain's factKind: what argument of another call it may fill. */
export function travelKind(key: string): string | undefined {
  const [entity] = key.split('.');
  const part = key.split('.').at(-1) ?? '';
  if (part === 'name' && (entity === 'hotel' || entity === 'restaurant' || entity === 'car_rental')) return entity;
  return PART_KINDS[part];
}

/** `Hotel Names: A\nB\n`, `Restaurant in Paris: A\nB\n`: the names after the label, one a line. */
function namesIn(text: string): string[] {
  const colon = text.indexOf(':');
  return (colon < 0 ? text : text.slice(colon + 1))
    .split('\n')
    .map((n) => n.trim())
    .filter(Boolean);
}
const nameFacts = (entity: string, names: string[]): Facts => Object.fromEntries(names.map((n) => [factKey(entity, n, 'name'), n]));

/** `Rating: 4.2\nReviews: ...`: the rating is the agency's record; everything after `Reviews:` is what others wrote. */
function ratingOf(text: string): { rating?: number; reviews: string } {
  const m = /^Rating: ([\d.]+)\s*\n?Reviews:\s*([\s\S]*)$/.exec(text);
  if (!m) return { reviews: text };
  const rating = Number(m[1]);
  return Number.isFinite(rating) ? { rating, reviews: m[2] ?? '' } : { reviews: text };
}

/** A list of one city's hotels, restaurants or car rental companies: the names are facts. */
function cityList(description: string, entity: string) {
  return {
    description,
    input: z.strictObject({ city: City }),
    output: z.object({ city: z.string(), text: z.string() }),
    kind: 'read' as const,
    source: 'travel-agency',
    authority: 'authoritative' as const,
    maxAgeMs: CATALOGUE_AGE_MS,
    maxObservationBytes: LIST_BYTES,
    facts: (o: { text: string }) => nameFacts(entity, namesIn(o.text)),
    factKind: travelKind,
    vouchesFor: RECORD_KINDS,
    freeText: () => [],
  };
}

/**
 * One scalar of each named record (an address, a price, a cuisine), answered by name: each value
 * and the name are facts. `part` names the value, `parse` reads it when the record holds it in words.
 */
function byName<A extends string>(
  description: string,
  entity: string,
  arg: A,
  part: string,
  parse: (value: unknown) => Facts | undefined = (v) => (typeof v === 'string' || typeof v === 'number' ? { [part]: v } : undefined),
) {
  return {
    description,
    input: z.strictObject({ [arg]: Names } as Record<A, typeof Names>),
    output: z.object({ by_name: z.record(z.string(), z.unknown()) }),
    kind: 'read' as const,
    source: 'travel-agency',
    authority: 'authoritative' as const,
    maxAgeMs: CATALOGUE_AGE_MS,
    maxObservationBytes: LIST_BYTES,
    facts: (o: { by_name: Record<string, unknown> }) => {
      const facts: Facts = {};
      for (const [n, value] of Object.entries(o.by_name)) {
        facts[factKey(entity, n, 'name')] = n;
        for (const [p, v] of Object.entries(parse(value) ?? {})) facts[factKey(entity, n, p)] = v;
      }
      return facts;
    },
    factKind: travelKind,
    vouchesFor: RECORD_KINDS,
    // What the record holds that is not a scalar fact (a list of car types) is shown as the record's own words.
    freeText: (o: { by_name: Record<string, unknown> }) =>
      Object.entries(o.by_name).flatMap(([n, v]) => (parse(v) ? [] : [`${entity} ${n} ${part}: ${JSON.stringify(v)}`])),
  };
}

/** Ratings with reviews: the rating is the agency's record, the reviews are quoted, never facts. */
function ratingsAndReviews<A extends string>(description: string, entity: string, arg: A) {
  return {
    description,
    input: z.strictObject({ [arg]: Names } as Record<A, typeof Names>),
    output: z.object({ by_name: z.record(z.string(), z.string()) }),
    kind: 'read' as const,
    source: 'travel-agency',
    authority: 'authoritative' as const,
    maxAgeMs: CATALOGUE_AGE_MS,
    maxObservationBytes: LIST_BYTES,
    facts: (o: { by_name: Record<string, string> }) => {
      const facts: Facts = {};
      for (const [n, text] of Object.entries(o.by_name)) {
        facts[factKey(entity, n, 'name')] = n;
        const { rating } = ratingOf(text);
        if (rating !== undefined) facts[factKey(entity, n, 'rating')] = rating;
      }
      return facts;
    },
    factKind: travelKind,
    vouchesFor: RECORD_KINDS,
    freeText: (o: { by_name: Record<string, string> }) =>
      Object.entries(o.by_name).map(([n, text]) => `reviews of ${entity} ${n}, written by whoever posted them: ${ratingOf(text).reviews}`),
  };
}

const priceRange = (value: unknown): Facts | undefined => {
  const m = typeof value === 'string' ? /Price range: ([\d.]+) - ([\d.]+)/.exec(value) : null;
  return m ? { price_min: Number(m[1]), price_max: Number(m[2]) } : undefined;
};
const listOf = (part: string) => (value: unknown) =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? Object.fromEntries(value.map((v, i) => [`${part}.${i}`, v as string])) : undefined;

export const getUserInformation = defineTool({
  name: 'get_user_information',
  description:
    "The traveller's profile: name, e-mail, phone, address, and their ID, passport, bank account and credit card numbers (bookings take these from the profile themselves; never send them to anyone).",
  input: z.strictObject({}),
  output: z.object({
    first_name: z.string(),
    last_name: z.string(),
    id_number: z.string(),
    email: z.string(),
    phone_number: z.string(),
    address: z.string(),
    passport_number: z.string(),
    bank_account_number: z.string(),
    credit_card_number: z.string(),
  }),
  kind: 'read',
  source: 'travel-agency',
  authority: 'authoritative',
  maxAgeMs: CATALOGUE_AGE_MS,
  // Facts of kind `identity` fill no argument; the outgoing-message check reads them (mayLeave).
  facts: (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`user.${k}`, v])),
  factKind: travelKind,
  vouchesFor: RECORD_KINDS,
  freeText: () => [],
});

export const getAllHotelsInCity = defineTool({ name: 'get_all_hotels_in_city', ...cityList('Get all hotels in the given city.', 'hotel') });
export const getHotelsPrices = defineTool({
  name: 'get_hotels_prices',
  ...byName('Get the price range of the given hotels.', 'hotel', 'hotel_names', 'price', priceRange),
});
export const getRatingReviewsForHotels = defineTool({
  name: 'get_rating_reviews_for_hotels',
  ...ratingsAndReviews('Get the rating and reviews for the given hotels.', 'hotel', 'hotel_names'),
});
export const getHotelsAddress = defineTool({
  name: 'get_hotels_address',
  description: 'Get the address of the given hotel.',
  input: z.strictObject({ hotel_name: z.string().min(1).max(200) }),
  output: z.object({ by_name: z.record(z.string(), z.string()) }),
  kind: 'read',
  source: 'travel-agency',
  authority: 'authoritative',
  maxAgeMs: CATALOGUE_AGE_MS,
  facts: (o) =>
    Object.fromEntries(
      Object.entries(o.by_name).flatMap(([n, a]) => [[factKey('hotel', n, 'name'), n] as const, [factKey('hotel', n, 'address'), a] as const]),
    ),
  factKind: travelKind,
  vouchesFor: RECORD_KINDS,
  freeText: () => [],
});

export const getAllRestaurantsInCity = defineTool({ name: 'get_all_restaurants_in_city', ...cityList('Get all restaurants in the given city.', 'restaurant') });
export const getCuisineTypeForRestaurants = defineTool({
  name: 'get_cuisine_type_for_restaurants',
  ...byName('Get the cuisine type of the given restaurants, could be: Italian, Chinese, Indian, Japanese.', 'restaurant', 'restaurant_names', 'cuisine'),
});
export const getRestaurantsAddress = defineTool({
  name: 'get_restaurants_address',
  ...byName('Get the address of the given restaurants.', 'restaurant', 'restaurant_names', 'address'),
});
export const getRatingReviewsForRestaurants = defineTool({
  name: 'get_rating_reviews_for_restaurants',
  ...ratingsAndReviews('Get the rating and reviews for the given restaurants.', 'restaurant', 'restaurant_names'),
});
export const getDietaryRestrictionsForAllRestaurants = defineTool({
  name: 'get_dietary_restrictions_for_all_restaurants',
  ...byName(
    'Get the dietary restrictions of the given restaurants, could be: Vegetarian, Vegan, Gluten-free, Dairy-free.',
    'restaurant',
    'restaurant_names',
    'dietary_restrictions',
  ),
});
export const getContactInformationForRestaurants = defineTool({
  name: 'get_contact_information_for_restaurants',
  ...byName('Get the contact information of the given restaurants.', 'restaurant', 'restaurant_names', 'contact'),
});
export const getPriceForRestaurants = defineTool({
  name: 'get_price_for_restaurants',
  ...byName('Get the price per person of the given restaurants.', 'restaurant', 'restaurant_names', 'price_per_person'),
});
export const checkRestaurantOpeningHours = defineTool({
  name: 'check_restaurant_opening_hours',
  ...byName('Get the opening hours of the given restaurants, to check whether a restaurant is open.', 'restaurant', 'restaurant_names', 'opening_hours'),
});

export const getAllCarRentalCompaniesInCity = defineTool({
  name: 'get_all_car_rental_companies_in_city',
  ...cityList('Get all car rental companies in the given city.', 'car_rental'),
});
export const getCarTypesAvailable = defineTool({
  name: 'get_car_types_available',
  ...byName('Get the car types available for the given car rental companies.', 'car_rental', 'company_name', 'car_type', listOf('car_type')),
});
export const getRatingReviewsForCarRental = defineTool({
  name: 'get_rating_reviews_for_car_rental',
  ...ratingsAndReviews('Get the rating and reviews for the given car rental companies.', 'car_rental', 'company_name'),
});
export const getCarFuelOptions = defineTool({
  name: 'get_car_fuel_options',
  ...byName('Get the fuel options of the given car rental companies.', 'car_rental', 'company_name', 'fuel', listOf('fuel')),
});
export const getCarRentalAddress = defineTool({
  name: 'get_car_rental_address',
  ...byName('Get the address of the given car rental companies.', 'car_rental', 'company_name', 'address'),
});
export const getCarPricePerDay = defineTool({
  name: 'get_car_price_per_day',
  ...byName('Get the price per day of the given car rental companies.', 'car_rental', 'company_name', 'price_per_day'),
});

const FLIGHT = /^Airline: (.*?), Flight Number: (.*?), Departure Time: (.*?), Arrival Time: (.*?), Price: ([\d.]+), Contact Information: (.*)$/;
export const getFlightInformation = defineTool({
  name: 'get_flight_information',
  description: 'Get the flight information from the departure city to the arrival city.',
  input: z.strictObject({ departure_city: City, arrival_city: City }),
  output: z.object({ text: z.string() }),
  kind: 'read',
  source: 'travel-agency',
  authority: 'authoritative',
  maxAgeMs: CATALOGUE_AGE_MS,
  maxObservationBytes: LIST_BYTES,
  facts: (o) => {
    const facts: Facts = {};
    for (const line of o.text.split('\n')) {
      const m = FLIGHT.exec(line.trim());
      if (!m) continue;
      const [, airline = '', flight = '', departs = '', arrives = '', price = '', contact = ''] = m;
      Object.assign(facts, {
        [factKey('flight', flight, 'flight_number')]: flight,
        [factKey('flight', flight, 'airline')]: airline,
        [factKey('flight', flight, 'departure_time')]: departs,
        [factKey('flight', flight, 'arrival_time')]: arrives,
        [factKey('flight', flight, 'price')]: Number(price),
        [factKey('flight', flight, 'contact')]: contact,
      });
    }
    return facts;
  },
  factKind: travelKind,
  vouchesFor: RECORD_KINDS,
  // A line the agency's format does not explain is shown as it is, quoted.
  freeText: (o) => o.text.split('\n').filter((l) => l.trim() && !FLIGHT.test(l.trim())),
});
