import type { AssetClassRow, AssetRow, LocationRow, OrganizationRow, SensorReadingRow, SensorRow } from '#db/schema';

// Catalogue rows → API shape. GraphQL resolves relations (parent, location,
// assetClass, latestReading) from the ids kept here through loaders.

export function presentOrganization(row: OrganizationRow) {
  return { id: row.id, name: row.name, parentId: row.parent_id, createdAt: row.created_at };
}

export function presentAssetClass(row: AssetClassRow) {
  return { id: row.id, name: row.name, description: row.description, createdAt: row.created_at };
}

export function presentLocation(row: LocationRow) {
  return { id: row.id, name: row.name, parentId: row.parent_id, createdAt: row.created_at };
}

export function presentAsset(row: AssetRow) {
  return {
    id: row.id,
    name: row.name,
    serialNumber: row.serial_number,
    locationId: row.location_id,
    assetClassId: row.asset_class_id,
    anchorId: row.anchor_id,
    createdAt: row.created_at,
  };
}

export function presentSensor(row: SensorRow) {
  return { id: row.id, name: row.name, unit: row.unit, kind: row.kind, createdAt: row.created_at };
}

export function presentSensorReading(row: SensorReadingRow) {
  return { sensorId: row.sensor_id, readingId: row.reading_id, value: row.value, timestamp: row.measured_at, receivedAt: row.received_at };
}
